import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 6 end to end: the hub and two real `pingtxt agent` processes on
/// loopback. The target answers by client address, and each agent checks
/// from its own source address (`[checks] source_address`), so the hub
/// (127.0.0.1), eu (127.0.0.2) and us (127.0.0.3) can see it differently.
/// Alerts go to a phone through the fake relay.
@Suite struct AgentIntegrationTests {
    /// `pingtxt agent` in a child process, its output in a log file.
    final class AgentChild {
        let pid: pid_t
        let logPath: String

        init(hubURL: String, token: String, name: String, source: String, logPath: String) throws {
            self.logPath = logPath
            let fd = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw HarnessError("cannot open \(logPath)") }
            defer { close(fd) }
            pid = try ChildProcess.spawn(try ChildProcess.pingtxtBinary(), ["agent", "--hub", hubURL, "--token", token, "--name", name],
                                       environment: ["PINGTXT_CHECKS_SOURCE_ADDRESS": source, "SWIFT_BACKTRACE": "enable=no",
                                                     "PATH": "/usr/bin:/bin"],
                                       stdout: fd, stderr: fd)
        }

        func kill9() {
            kill(pid, SIGKILL)
            _ = Subprocess.wait(pid, timeoutMillis: 5_000)
        }

        deinit { kill9() }
    }

    func waitUntil(_ what: String, timeoutMillis: Int = 20_000, _ done: () throws -> Bool) rethrows {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while try !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
            usleep(100_000)
        }
    }

    @Test func quorumOfTwoAgentProcessesOfflineAlertsAndCheckNow() throws {
        let relay = try FakePushRelay()
        defer { relay.stop() }
        let target = try ClientAddressTarget(healthyFor: ["127.0.0.1", "127.0.0.2", "127.0.0.3"])
        defer { target.stop() }
        let hub = try MonitoringHub(environment: ["PINGTXT_AGENTS_POLL_INTERVAL": "1"])
        _ = try expectJSON(try hub.call("PATCH", "/api/settings",
                                        json: ["mobile_push": ["enabled": true, "relay_url": .string(relay.baseURL)]]))
        let access = try MobileAPITests().signIn(hub.hub)
        _ = try expectJSON(try hub.hub.call("POST", "/api/mobile/devices", token: access,
                                            json: ["platform": "ios", "token": "apns-oncall", "name": "iPhone", "app_version": "1"]), 201)
        _ = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "Phones", "type": "mobile",
            "events": ["monitor_down", "monitor_up", "agent_offline", "agent_online"], "config": ["users": []],
        ]), 201)
        func alerts() -> [String] {
            relay.delivered.filter { $0.kind == "alert" }.compactMap { $0.aps["category"]?.stringValue }
        }

        var children: [String: AgentChild] = [:]
        let hubURL = "http://127.0.0.1:\(hub.hub.port)"
        var tokens: [String: String] = [:]
        for (name, source) in [("eu", "127.0.0.2"), ("us", "127.0.0.3")] {
            let created = try expectJSON(try hub.call("POST", "/api/agents", json: ["name": .string(name)]), 201)
            tokens[name] = try #require(created["token"]?.stringValue)
            children[name] = try AgentChild(hubURL: hubURL, token: tokens[name]!, name: name, source: source,
                                            logPath: hub.hub.sandbox.path("agent-\(name).log"))
        }
        func agentStatus() throws -> [String: String] {
            let items = try expectJSON(try hub.call("GET", "/api/agents"))["items"]?.arrayValue ?? []
            return Dictionary(items.compactMap { a in a["name"]?.stringValue.map { ($0, a["status"]?.stringValue ?? "") } },
                              uniquingKeysWith: { a, _ in a })
        }
        try waitUntil("both agents online") { try agentStatus() == ["eu": "online", "us": "online"] }

        // hub + eu + us; down needs two of them.
        let (id, _) = try hub.createChecked(httpMonitor("Shop", target.url, [("confirm_locations", 2)]))
        func checkNow() throws -> (byLocation: [String: String], missing: [JSON], status: String?) {
            let r = try expectJSON(try hub.call("POST", "/api/monitors/\(id)/check"))
            let results = r["results"]?.arrayValue ?? []
            let by = Dictionary(results.compactMap { x in x["location"]?.stringValue.map { ($0, x["status"]?.stringValue ?? "") } },
                                uniquingKeysWith: { a, _ in a })
            return (by, r["missing_locations"]?.arrayValue ?? [], r["monitor"]?["status"]?.stringValue)
        }
        // The agents may not have fetched the new monitor yet: a check request
        // naming an unknown monitor makes them fetch, so allow one retry.
        var first = try checkNow()
        if first.byLocation.count < 3 { first = try checkNow() }
        #expect(first.byLocation == ["hub": "up", "eu": "up", "us": "up"] && first.missing.isEmpty)

        // One location of three sees it down: below the quorum, still up.
        target.setHealthy(["127.0.0.1", "127.0.0.3"])
        let one = try checkNow()
        #expect(one.byLocation == ["hub": "up", "eu": "down", "us": "up"])
        #expect(one.status == "up")
        #expect(!alerts().contains("MONITOR_DOWN"))

        // Two of three: down, and the phone hears it.
        target.setHealthy(["127.0.0.1"])
        let two = try checkNow()
        #expect(two.byLocation == ["hub": "up", "eu": "down", "us": "down"])
        #expect(two.status == "down")
        waitUntil("MONITOR_DOWN at the relay") { alerts().contains("MONITOR_DOWN") }
        let incidents = try hub.incidents(id, status: "open")
        #expect(Set(incidents.first?["locations"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["eu", "us"])

        target.setHealthy(["127.0.0.1", "127.0.0.2", "127.0.0.3"])
        #expect(try checkNow().status == "up")
        waitUntil("MONITOR_UP at the relay") { alerts().contains("MONITOR_UP") }

        // Killing eu: offline after 3 poll intervals, and the phone is told.
        children["eu"]?.kill9()
        waitUntil("AGENT_OFFLINE at the relay") { alerts().contains("AGENT_OFFLINE") }
        let offline = try #require(relay.delivered.first { $0.aps["category"]?.stringValue == "AGENT_OFFLINE" })
        #expect(offline.aps["alert"]?["title"]?.stringValue == "Agent eu is offline")
        #expect(try agentStatus()["eu"] == "offline")
        // Check now names no offline location as missing: it is not asked.
        let without = try checkNow()
        #expect(without.byLocation == ["hub": "up", "us": "up"] && without.missing.isEmpty)

        children["eu"] = try AgentChild(hubURL: hubURL, token: tokens["eu"]!, name: "eu", source: "127.0.0.2",
                                        logPath: hub.hub.sandbox.path("agent-eu.log"))
        waitUntil("AGENT_ONLINE at the relay") { alerts().contains("AGENT_ONLINE") }
        #expect(try agentStatus()["eu"] == "online")
        #expect(Set(relay.delivered.map(\.id)).count == relay.delivered.count, "every alert once")
    }
}
