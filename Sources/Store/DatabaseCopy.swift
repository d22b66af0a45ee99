#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Core

/// `pingtxt migrate-db` (SPEC §14): copies every table of a database into
/// a new, empty one on the other engine, ids kept.
///
/// All the work on the target is one write transaction: the schema is
/// created by this binary's migrations, the rows are copied table by table
/// with parents before children (foreign keys), PostgreSQL's identity
/// sequences are moved past the copied ids, and the row counts of both
/// sides are compared. Any failure, a count that differs included, rolls
/// it all back, so the target is as empty as before and the command can
/// simply be run again. A SQLite target is built in a temporary file beside
/// the path and linked into place only after the commit, so the path never
/// holds a half-copied database either.
///
/// The source is read in one snapshot (`Database.read`), in pages by
/// primary key, so memory stays small whatever the size of the history.
public enum DatabaseCopy {
    /// One table's rows in the source and, after the copy, in the target.
    public struct TableCount: Sendable, Equatable {
        public let table: String
        public let source: Int64
        public let target: Int64
    }

    /// Rows per INSERT: few statements, well under both engines' parameter
    /// limits (SQLite 32,766, PostgreSQL 65,535) for any table width.
    static let pageRows = 500
    static let pageParameters = 30_000

    /// Copies `source` into the empty database at `target`, on the other
    /// engine, and returns the row counts of every table in copy order.
    ///
    /// Refused: both on one engine; a source whose recorded migrations are
    /// not exactly this binary's (open it with this binary first: `Database`
    /// migrates it); a SQLite target file that exists; a PostgreSQL target
    /// where any of the hub's tables has a row (`schema_migrations`
    /// included, so a database some hub has used is refused).
    public static func run(from source: Database, to target: DatabaseURL, busyTimeoutMillis: Int = 5000) throws -> [TableCount] {
        guard source.engine != target.engine else {
            throw StoreError.misuse("source and target are both \(source.engine.rawValue): migrate-db copies between SQLite and PostgreSQL")
        }
        try checkMigrations(source)
        switch target.kind {
        case .postgres:
            let c = try Connection(postgres: target, role: .writer)
            defer { c.close() }
            return try copy(source, into: c)
        case .sqlite(let path):
            return try copy(source, intoNewSQLiteFile: path, busyTimeoutMillis: busyTimeoutMillis)
        }
    }

    /// The source must have been migrated by this binary and nothing else:
    /// the target gets this binary's schema, and rows of an older or newer
    /// one would not fit it.
    private static func checkMigrations(_ source: Database) throws {
        let applied = Set(try source.appliedMigrations())
        let known = Set(Migrations.all.map(\.name))
        guard applied != known else { return }
        var parts: [String] = []
        let missing = known.subtracting(applied).sorted()
        let unknown = applied.subtracting(known).sorted()
        if !missing.isEmpty { parts.append("not yet applied: " + missing.joined(separator: ", ")) }
        if !unknown.isEmpty { parts.append("unknown to this binary: " + unknown.joined(separator: ", ")) }
        throw StoreError(code: SQLITE_ERROR, message: "the source database's migrations differ from this binary's ("
            + parts.joined(separator: "; ") + "); open it once with this pingtxt, which migrates it, then copy")
    }

    private static func copy(_ source: Database, into target: Connection) throws -> [TableCount] {
        try source.read { src in
            try Database.transaction(target, begin: Database.beginWrite(target)) { dst in
                try TableCopier(source: src, target: dst).run()
            }
        }
    }

    /// A new SQLite file at `path`: built as `path.migrate-PID`, then
    /// hard-linked to `path` (which fails if the path appeared meanwhile,
    /// where a rename would replace it) and the temporary name removed.
    private static func copy(_ source: Database, intoNewSQLiteFile path: String, busyTimeoutMillis: Int) throws -> [TableCount] {
        for existing in [path, path + "-wal"] where access(existing, F_OK) == 0 {
            throw StoreError(code: SQLITE_CANTOPEN, message: "the target \(existing) already exists: migrate-db writes a new SQLite file only")
        }
        try FileHelpers.makeParentDirectory(of: path)
        let tmp = path + ".migrate-\(getpid())"
        func removeTemporary() {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(tmp + suffix) }
        }
        removeTemporary()
        do {
            let c = try Connection(path: tmp, role: .writer, busyTimeoutMillis: busyTimeoutMillis)
            let counts: [TableCount]
            do {
                counts = try copy(source, into: c)
                // The hub runs with autocheckpoint off (its checkpointer does
                // it): move the copy out of the WAL so the file stands alone.
                try c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            } catch {
                c.close()
                throw error
            }
            c.close()
            try FileHelpers.fsyncFile(tmp)
            if link(tmp, path) != 0 {
                let code = errno
                throw StoreError(code: SQLITE_CANTOPEN, message: "cannot create \(path): \(SystemError("link", errno: code))")
            }
            removeTemporary()
            try FileHelpers.fsyncParentDirectory(of: path)
            return counts
        } catch let error as SystemError {
            removeTemporary()
            throw StoreError(code: SQLITE_IOERR, message: "writing \(path): \(error)")
        } catch {
            removeTemporary()
            throw error
        }
    }
}
