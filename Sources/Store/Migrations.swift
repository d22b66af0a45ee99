import CSQLite
import Core

/// One schema change, identified forever by its name.
public struct Migration: Sendable, Equatable {
    public typealias Step = @Sendable (Connection) throws(StoreError) -> Void
    public let name: String
    public let sql: String
    /// Runs after `sql` in the same transaction, for the rare change one
    /// script cannot say on both engines (0021 widens a CHECK constraint).
    public let step: Step?
    public init(name: String, sql: String, step: Step? = nil) {
        self.name = name
        self.sql = sql
        self.step = step
    }

    public static func == (a: Migration, b: Migration) -> Bool { a.name == b.name && a.sql == b.sql }
}

/// Ordered, named migrations recorded in `schema_migrations`. Append only:
/// never rename, reorder or edit a shipped migration.
public enum Migrations {
    public static let all: [Migration] = [
        Schema0001.migration,
        Schema0002.migration,
        Schema0003.migration,
        Schema0004.migration,
        Schema0005.migration,
        Schema0006.migration,
        Schema0007.migration,
        Schema0010.migration,
        Schema0011.migration,
        Schema0012.migration,
        Schema0013.migration,
        Schema0014.migration,
        Schema0015.migration,
        Schema0016.migration,
        Schema0017.migration,
        Schema0018.migration,
        Schema0019.migration,
        Schema0020.migration,
        Schema0021.migration,
        Schema0022.migration,
        Schema0023.migration,
        Schema0024.migration,
        Schema0025.migration,
        Schema0026.migration,
        Schema0027.migration,
        Schema0028.migration,
        Schema0029.migration,
        Schema0030.migration,
        Schema0031.migration,
        Schema0032.migration,
        Schema0033.migration,
    ]

    /// Applies the missing migrations in order, each in its own write
    /// transaction. Refuses a database that has migrations this list lacks
    /// (it was written by a newer binary: running on it could corrupt data).
    static func run(_ migrations: [Migration], on c: Connection) throws(StoreError) {
        var seen = Set<String>()
        for m in migrations where !seen.insert(m.name).inserted {
            throw StoreError.misuse("duplicate migration name \(m.name)")
        }
        try Database.writeTransaction(c) { c throws(StoreError) in
            try lockAgainstOtherHubs(c)
            try prepare(c)
        }
        let applied = try applied(c)
        let unknown = applied.filter { !seen.contains($0) }
        if !unknown.isEmpty {
            throw StoreError(code: SQLITE_ERROR, message: "the database has migration(s) this binary does not know: "
                + unknown.joined(separator: ", ")
                + " (written by a newer pingtxt? downgrading is not supported; restore a backup or upgrade)")
        }
        let done = Set(applied)
        for m in migrations where !done.contains(m.name) {
            let ran = try Database.writeTransaction(c) { c throws(StoreError) -> Bool in
                // Re-check under the write lock: another process may have
                // migrated between our read and this transaction.
                try lockAgainstOtherHubs(c)
                if try c.queryOne("SELECT 1 FROM schema_migrations WHERE name = ?", [.text(m.name)]) != nil {
                    return false
                }
                try c.executeScript(m.sql)
                try m.step?(c)
                try c.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                              [.text(m.name), .integer(Time.now())])
                return true
            }
            if ran { Log.shared.info("applied database migration", ["name": m.name]) }
        }
    }

    /// What every schema needs before its first migration, inside the
    /// caller's transaction: the collation the migrations name, and the
    /// table that records them.
    private static func prepare(_ c: Connection) throws(StoreError) {
        if c.engine == .postgres {
            // `COLLATE NOCASE` (users.email) on PostgreSQL: a case-insensitive
            // ICU collation under SQLite's name (Dialect).
            // In the schema the tables go to (the first of search_path).
            try c.executeScript("""
                CREATE COLLATION IF NOT EXISTS nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false)
                """)
        }
        try c.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER)")
    }

    /// Creates the whole schema inside the caller's open write transaction
    /// (`DatabaseCopy`), so a failure later in that transaction leaves no
    /// half-made schema behind. The migrations are not recorded: the copy
    /// brings the source's `schema_migrations` rows, so both databases keep
    /// the same history. The caller holds `lockAgainstOtherHubs`.
    static func createSchema(_ migrations: [Migration], on c: Connection) throws(StoreError) {
        try prepare(c)
        for m in migrations {
            try c.executeScript(m.sql)
            try m.step?(c)
        }
    }

    /// Recorded migration names in the order they were applied (names
    /// start with their number, so within one second name order is it).
    static func applied(_ c: Connection) throws(StoreError) -> [String] {
        try c.query("SELECT name FROM schema_migrations ORDER BY applied_at, name").map { r throws(StoreError) in try r.text("name") }
    }

    /// SQLite's `BEGIN IMMEDIATE` already excludes every other writer. On
    /// PostgreSQL, hubs starting together would race to create the same
    /// tables: a transaction-scoped advisory lock, held only for this short
    /// schema transaction and released by its COMMIT (never across a job).
    static func lockAgainstOtherHubs(_ c: Connection) throws(StoreError) {
        guard c.engine == .postgres else { return }
        // Keyed by schema: hubs on one schema exclude each other, databases
        // in other schemas of the same server (tests) do not wait.
        try c.execute("SELECT pg_advisory_xact_lock(740638452, hashtext(current_schema()))")
    }
}
