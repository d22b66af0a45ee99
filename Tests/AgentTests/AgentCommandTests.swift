import Core
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `pingtxt agent` as a real process against the fake hub.
@Suite(.serialized) struct AgentCommandTests {
    typealias F = AgentFixtures

    @Test func badArgumentsExitOneWithOneLine() throws {
        let cases: [([String], [String: String], String)] = [
            (["--hub", "http://127.0.0.1:9"], [:], "token is required"),
            (["--hub", "http://127.0.0.1:9", "--token", "abc"], [:], "pmg_"),
            (["--hub", "http://127.0.0.1:9"], ["PINGTXT_AGENT_TOKEN": "pma_wrongkind12345"], "pmg_"),
            (["--token", F.token], [:], "hub URL is required"),
            (["--hub", "hub.example.com", "--token", F.token], [:], "https://"),
            (["--hub", "http://hub.example.com", "--token", F.token], [:], "loopback"),
            (["--hub", "https://hub.example.com", "--token", F.token, "--bogus", "1"], [:], "unknown option --bogus"),
        ]
        for (args, env, text) in cases {
            let (code, lines) = try AgentProcess.run(args, environment: env)
            #expect(code == 1, "\(args): \(lines)")
            #expect(lines.count == 1 && lines.first?.contains(text) == true, "\(args): \(lines)")
        }
    }

    @Test func nameMismatchExitsOne() throws {
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west")
        defer { hub.stop() }
        let (code, lines) = try AgentProcess.run(["--hub", hub.baseURL, "--token", F.token, "--name", "us-east"])
        #expect(code == 1, "\(lines)")
        #expect(lines.count == 1 && lines[0].hasPrefix("pingtxt: ") && lines[0].contains("'eu-west', not 'us-east'"), "\(lines)")
    }

    /// Settings from the environment, a check request answered with its
    /// request_id, scheduled results buffered, and SIGTERM: last upload, exit 0.
    @Test func runsFromEnvironmentAnswersChecksAndStopsOnSIGTERM() throws {
        let target = try SwitchableHTTPTarget()
        defer { target.stop() }
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west", monitors: [F.httpMonitor(id: 12, url: target.healthURL)])
        defer { hub.stop() }
        let agent = try AgentProcess(["--name", "eu-west"],
                                     environment: ["PINGTXT_AGENT_HUB": hub.baseURL, "PINGTXT_AGENT_TOKEN": F.token])
        #expect(hub.wait { $0.polls >= 1 }, "\(agent.output)")
        hub.requestCheck(requestID: "c-81f2", monitorID: 12)
        #expect(hub.wait { $0.results.contains { $0["request_id"]?.stringValue == "c-81f2" } }, "\(agent.output)")
        #expect(hub.results.first?["status"]?.stringValue == "up")
        #expect(hub.wait { $0.monitorAnswers[304, default: 0] >= 1 }, "\(agent.output)")

        agent.signal(SIGTERM)
        #expect(agent.wait(timeoutMillis: 10_000) == 0, "\(agent.output)")
        let lines = agent.lines
        #expect(lines.contains { $0.contains("INFO pingtxt agent connected") && $0.contains("agent=eu-west") }, "\(lines)")
        #expect(lines.contains { $0.contains("check requested by the hub") && $0.contains("request_id=c-81f2") }, "\(lines)")
        #expect(lines.last?.contains("pingtxt agent stopped") == true, "\(lines)")
        #expect(!agent.output.contains(F.token))  // the token never reaches the log
    }

    @Test func sigintWhileTheHubIsUnreachableExitsZero() throws {
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west")
        defer { hub.stop() }
        hub.setUnavailable(true)
        let agent = try AgentProcess(["--hub", hub.baseURL, "--token", F.token])
        #expect(hub.wait { $0.refused >= 1 }, "\(agent.output)")
        agent.signal(SIGINT)
        #expect(agent.wait(timeoutMillis: 10_000) == 0, "\(agent.output)")
    }

    /// `--config FILE` supplies the settings; flags override it.
    @Test func configFileSuppliesSettingsAndFlagsOverride() throws {
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west")
        defer { hub.stop() }
        let path = "/tmp/pingtxt-agent-config-\(getpid()).toml"
        let text = "[agent]\nhub = \"\(hub.baseURL)\"\ntoken = \"\(F.token)\"\nname = \"eu-west\"\n"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        defer { unlink(path) }
        // The file's hub and token are used; --name overrides the file's name.
        let (code, lines) = try AgentProcess.run(["--config", path, "--name", "us-east"])
        #expect(code == 1 && lines.count == 1 && lines.first?.contains("'eu-west', not 'us-east'") == true, "\(lines)")
        // The file alone is a working configuration.
        let agent = try AgentProcess(["--config", path])
        #expect(hub.wait { $0.polls >= 1 }, "\(agent.output)")
        agent.signal(SIGTERM)
        #expect(agent.wait(timeoutMillis: 10_000) == 0, "\(agent.output)")
    }
}
