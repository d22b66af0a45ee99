import Config
import Core
import Store
#if canImport(Glibc)
import Glibc
#endif

/// `pingtxt migrate-db --to URL | --from URL [--config FILE]` (SPEC §14,
/// docs/postgres.md): moves a hub between its SQLite file (the configured
/// `[database] path`) and a PostgreSQL database. The copying and every
/// refusal about the databases' contents are `Store.DatabaseCopy`'s; this
/// command picks the direction, makes sure no hub runs on the SQLite file,
/// and prints the row counts.
enum MigrateDBCommand {
    static func run(_ args: Arguments) throws {
        try args.allow(["config", "to", "from"])
        let to = args.options["to"], from = args.options["from"]
        guard (to == nil) != (from == nil) else {
            throw CLIError("migrate-db needs one of --to URL (SQLite to PostgreSQL) or --from URL (PostgreSQL to SQLite)")
        }
        let config = try CLI.loadConfig(args)
        guard case .sqlite(let path) = config.database.location.kind else {
            throw CLIError("migrate-db copies between the configured SQLite database and PostgreSQL, but [database] url is "
                + "\(config.database.location.redacted): set [database] path (PINGTXT_DATABASE_PATH) to the SQLite file instead")
        }
        if let to {
            try copyOut(config, path, postgresURL(to, flag: "to"))
        } else if let from {
            try copyIn(config, path, postgresURL(from, flag: "from"))
        }
    }

    private static func postgresURL(_ text: String, flag: String) throws -> DatabaseURL {
        let url: DatabaseURL
        do {
            url = try DatabaseURL(text)
        } catch {
            throw CLIError("--\(flag): \(error.description)")
        }
        guard url.engine == .postgres else {
            throw CLIError("--\(flag) must be a postgres:// URL: migrate-db copies between the configured SQLite database and PostgreSQL")
        }
        return url
    }

    /// SQLite → PostgreSQL. The file must exist (opening a missing one would
    /// create an empty database and copy nothing), and no hub may run on it:
    /// its flock is held for the whole copy, so one cannot start meanwhile.
    private static func copyOut(_ config: HubConfig, _ path: String, _ target: DatabaseURL) throws {
        guard access(path, F_OK) == 0 else {
            throw CLIError("no SQLite database at \(path): nothing to copy (is [database] path right?)")
        }
        let lock = try ServeCommand.lockDatabase(path, busy: "a pingtxt hub is running on \(path): stop it before migrate-db")
        defer { close(lock) }
        let source = try CLI.openDatabase(config)
        defer { source.close() }
        report(try copy(source, to: target, config), from: source.url, to: target)
    }

    /// PostgreSQL → SQLite, into the configured path, which must be new.
    /// Checked here before connecting, and again by the copy.
    private static func copyIn(_ config: HubConfig, _ path: String, _ sourceURL: DatabaseURL) throws {
        guard access(path, F_OK) != 0 else {
            throw CLIError("\(path) already exists: migrate-db --from writes a new SQLite file; move it away or set [database] path to a new one")
        }
        var sourceConfig = config
        sourceConfig.database.url = sourceURL
        sourceConfig.database.readers = 1
        let source = try CLI.openDatabase(sourceConfig)
        defer { source.close() }
        let target = DatabaseURL(sqlitePath: path)
        report(try copy(source, to: target, config), from: sourceURL, to: target)
    }

    private static func copy(_ source: Database, to target: DatabaseURL, _ config: HubConfig) throws -> [DatabaseCopy.TableCount] {
        do {
            return try DatabaseCopy.run(from: source, to: target, busyTimeoutMillis: config.database.busyTimeoutMs)
        } catch let error as StoreError {
            // The message without the failed statement: one line, and the
            // target is as before (one transaction; a new file only at the end).
            let engine = error.sqlState.map { "PostgreSQL error \($0): " } ?? ""
            throw CLIError("nothing was copied: \(engine)\(error.message)")
        }
    }

    /// One line per table (source and target counts), then the total.
    private static func report(_ counts: [DatabaseCopy.TableCount], from source: DatabaseURL, to target: DatabaseURL) {
        let width = max(5, counts.map(\.table.count).max() ?? 0)
        let digits = max(6, counts.map { String($0.source).count }.max() ?? 0)
        func pad(_ s: String, _ n: Int, right: Bool) -> String {
            let fill = String(repeating: " ", count: max(0, n - s.count))
            return right ? fill + s : s + fill
        }
        print("copied \(source.redacted) to \(target.redacted)")
        print("  " + pad("table", width, right: false) + "  " + pad("source", digits, right: true) + "  " + pad("target", digits, right: true))
        for c in counts {
            print("  " + pad(c.table, width, right: false) + "  " + pad(String(c.source), digits, right: true)
                + "  " + pad(String(c.target), digits, right: true))
        }
        let rows = counts.reduce(Int64(0)) { $0 + $1.target }
        print("\(counts.count) tables, \(rows) rows: the row counts match")
    }
}
