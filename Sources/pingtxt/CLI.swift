import Config
import Core
import Store
#if canImport(Glibc)
import Glibc
#endif

/// `pingtxt <command>`: parses the words and runs one command.
enum CLI {
    static let usage = """
    usage: pingtxt <command> [options]

      serve [--config FILE] [--log-format text|json]   run the hub
      agent --hub URL --token pmg_… [--name NAME]       run a remote check agent
      user add --email E --role admin|readonly [--name N] [--password-stdin]
      user passwd --email E [--password-stdin]
      token create --email E --scope read|write [--name N]
      backup --out FILE                                 consistent online copy of the database
      migrate-db --to postgres://…                      copy the stopped hub's SQLite database into an empty PostgreSQL one
      migrate-db --from postgres://…                    copy a PostgreSQL database into the configured SQLite path (a new file)
      check-config [--config FILE]                      validate the configuration
      export [--out FILE] [--redact] [--url URL]        write the hub's monitors, channels, … as TOML (PINGTXT_TOKEN)
      apply FILE [--dry-run] [--prune] [--url URL]      make the hub match such a file, matched by key (PINGTXT_TOKEN)
      version

    Every command takes --config FILE and the PINGTXT_<SECTION>_<KEY> environment overrides.
    """

    static func run(_ argv: [String]) -> Int32 {
        do {
            let args = try Arguments(argv)
            // Only the server logs its routine; a CLI command's output is its
            // result or one error line (serve configures its own level).
            Log.shared.configure(level: .warn)
            switch args.words {
            case ["serve"]: return try ServeCommand.run(args)
            case ["agent"]: return try AgentCommand.run(args)
            case ["user", "add"]: try UserCommands.add(args)
            case ["user", "passwd"]: try UserCommands.passwd(args)
            case ["token", "create"]: try TokenCommand.create(args)
            case ["backup"]: try BackupCommand.run(args)
            case ["migrate-db"]: try MigrateDBCommand.run(args)
            case ["check-config"]: try CheckConfigCommand.run(args)
            case ["export"]: try ExportCommand.run(args)
            case let w where w.first == "apply": try ApplyCommand.run(args)
            case ["version"]:
                try args.allow(["config"])
                print("pingtxt \(versionString)")
            case [], ["help"]:
                print(usage)
            default:
                throw CLIError("unknown command '\(args.words.joined(separator: " "))'; run 'pingtxt help'")
            }
            return 0
        } catch let error as CLIError {
            printError(error.description)
        } catch let error as ConfigError {
            printError("invalid configuration:\n\(error.description)")
        } catch {
            printError("\(error)")
        }
        return 1
    }

    static let versionString = "0.1.0"

    static func printError(_ message: String) {
        let line = "pingtxt: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    static func loadConfig(_ args: Arguments) throws -> HubConfig {
        try HubConfig.load(path: args.options["config"], environment: HubConfig.processEnvironment())
    }

    /// The config with `--log-format` and `--log-level` applied over it, and
    /// the logger configured from the result (`serve` and `agent`).
    static func loadConfigAndLogging(_ args: Arguments) throws -> HubConfig {
        var config = try loadConfig(args)
        if let format = args.options["log-format"] {
            guard let f = Log.Format(rawValue: format) else { throw CLIError("--log-format must be text or json") }
            config.log.format = f
        }
        if let level = args.options["log-level"] {
            guard let l = Log.Level(name: level) else { throw CLIError("--log-level must be debug, info, warn or error") }
            config.log.level = l
        }
        Log.shared.configure(level: config.log.level, format: config.log.format)
        return config
    }

    /// Opens the configured database. `retryFor`: a PostgreSQL server that
    /// cannot be reached yet (starting after the hub, a failover) is tried
    /// again every second for that long (SPEC §14: 30 s for `serve`).
    static func openDatabase(_ config: HubConfig, retryFor seconds: Int = 0) throws -> Database {
        let location = config.database.location
        let deadline = Time.monotonicNanos() + UInt64(seconds) * 1_000_000_000
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try Database(url: location, readers: config.database.readers,
                                    busyTimeoutMillis: config.database.busyTimeoutMs)
            } catch where error.isClientLibraryMissing {
                throw CLIError(error.message)
            } catch where error.isUnreachable && Time.monotonicNanos() < deadline {
                if attempts == 1 {
                    Log.shared.warn("database not reachable yet, retrying", ["database": location.redacted, "for_seconds": "\(seconds)"])
                }
                sleep(1)
            } catch where error.isUnreachable {
                throw CLIError(seconds > 0 ? "\(error.message) (gave up after \(seconds) s)" : error.message)
            } catch {
                throw CLIError("cannot open the database at \(location.redacted): \(error)")
            }
        }
    }
}
