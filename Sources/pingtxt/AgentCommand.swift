import Agent
import CShims
import Config
import Core
import Net
#if canImport(Glibc)
import Glibc
#endif

/// `pingtxt agent --hub URL --token pmg_… [--name NAME]`: a remote check
/// location (docs/agents.md). Flags override `[agent]` in the config file
/// and `PINGTXT_AGENT_*`; `[checks] ca_file`, `source_address` and
/// `max_concurrent` apply as on the hub. SIGTERM/SIGINT: stop, one last
/// bounded upload, exit 0.
enum AgentCommand {
    static func run(_ args: Arguments) throws -> Int32 {
        try args.allow(["config", "hub", "token", "name", "log-format", "log-level"])
        let config = try CLI.loadConfigAndLogging(args)
        let settings = try makeSettings(args, config)

        // Before any thread starts, so only the signal thread below sees them.
        pt_block_signals()
        pt_ignore_sigpipe()
        let runner = AgentRunner(settings: settings)
        let signals = startThread(name: "agent-signals") { waitForStop(runner) }
        signals.detach()
        let running: Bool
        do {
            running = try runner.start()
        } catch {
            runner.stop()
            throw CLIError(error.description)
        }
        if running {
            runner.waitForStopRequest()
            Log.shared.info("stopping: last upload of buffered results")
        }
        runner.stop()
        return 0
    }

    /// Flags, then config/environment; every problem is one line.
    static func makeSettings(_ args: Arguments, _ config: HubConfig) throws -> AgentSettings {
        let hub = args.options["hub"] ?? config.agent.hub
        let token = args.options["token"] ?? config.agent.token
        let name = args.options["name"] ?? config.agent.name
        do {
            try AgentSettings.validateToken(token)
            var settings = AgentSettings(hubURL: try AgentSettings.normalizeHubURL(hub), token: token)
            settings.expectedName = name.isEmpty ? nil : name
            settings.extraCAFile = config.checks.caFile.isEmpty ? nil : config.checks.caFile
            settings.sourceAddress = IPAddress(literal: config.checks.sourceAddress)
            settings.maxConcurrent = config.checks.maxConcurrent
            settings.version = CLI.versionString
            return settings
        } catch {
            throw CLIError(error.description)
        }
    }

    /// In an ordinary function, so the closure is not main-actor isolated.
    private static func waitForStop(_ runner: AgentRunner) {
        while true {
            let sig = pt_wait_signal()
            if sig == SIGTERM || sig == SIGINT { break }
        }
        runner.requestStop()
    }
}
