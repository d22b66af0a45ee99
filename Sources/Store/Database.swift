#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Core
import Synchronization

/// The hub's database: one writer connection and a pool of reader
/// connections, on one SQLite file in WAL mode or on a PostgreSQL server.
/// Sendable; share one instance.
///
/// - `write` serialises all writes through the single writer (SQLite allows one
///   writer anyway; queuing here is cheaper and fairer than busy-waiting).
/// - `read` runs on a reader in its own snapshot, so reads never wait for
///   writes and writes never wait for reads.
public final class Database: Sendable {
    /// The SQLite file, or the PostgreSQL URL without its password.
    public let path: String
    public let url: DatabaseURL
    public let engine: DatabaseEngine
    /// The writer: a pool of one, so holding it for a whole transaction is
    /// what serialises writes.
    private let writer: ConnectionPool
    /// PostgreSQL only: more writer connections, for writes that may run
    /// beside the writer's (`write(lane:)`).
    private let lanes: [ConnectionPool]
    private let readers: ConnectionPool
    /// SQLite only: PostgreSQL checkpoints on its own.
    private let checkpointer: Checkpointer?
    private let credentialChanges = Atomic<UInt64>(0)
    private let writerCheckpoints = Atomic<Int>(0)

    /// Counts this process's write transactions that changed credentials
    /// (`Connection.changedCredentials`), each counted after its COMMIT or
    /// ROLLBACK. A cache of checked credentials reads it before it reads the
    /// database and drops whatever it kept under an older count. Changes made
    /// by another process (another hub, the CLI) are not counted here.
    public var credentialGeneration: UInt64 { credentialChanges.load(ordering: .acquiring) }

    /// Name of the newest migration this binary knows.
    public static var schemaVersion: String { Migrations.all.last?.name ?? "" }

    /// Opens (creating if needed, with its parent directory, mode 0700) and
    /// migrates a SQLite database.
    public convenience init(path: String, readers: Int = 4, busyTimeoutMillis: Int = 5000,
                            migrations: [Migration] = Migrations.all,
                            checkpoints: WALCheckpoints = .standard) throws(StoreError) {
        try self.init(url: DatabaseURL(sqlitePath: path), readers: readers, busyTimeoutMillis: busyTimeoutMillis,
                      migrations: migrations, checkpoints: checkpoints)
    }

    /// Opens and migrates the database at `url`: a SQLite file (created if
    /// needed) or a PostgreSQL database (which must exist; its tables are
    /// created by the migrations). On PostgreSQL the writer is one
    /// connection too: a hub's own writes stay serialised as on SQLite, and
    /// several hubs are kept apart by row locks and claims (docs/design.md).
    /// `checkpoints` (SQLite): how the WAL is kept short (`Checkpointer`).
    public init(url: DatabaseURL, readers: Int = 4, busyTimeoutMillis: Int = 5000,
                migrations: [Migration] = Migrations.all,
                checkpoints: WALCheckpoints = .standard) throws(StoreError) {
        self.url = url
        path = url.redacted
        engine = url.engine
        func open(_ role: Connection.Role) throws(StoreError) -> Connection {
            switch url.kind {
            case .sqlite(let path): try Connection(path: path, role: role, busyTimeoutMillis: busyTimeoutMillis)
            case .postgres: try Connection(postgres: url, role: role)
            }
        }
        if case .sqlite(let path) = url.kind { try FileHelpers.makeParentDirectory(of: path) }
        let w = try open(.writer)
        do {
            try Migrations.run(migrations, on: w)
        } catch {
            w.close()
            throw error
        }
        var pool: [Connection] = []
        do {
            for _ in 0..<max(1, readers) { pool.append(try open(.reader)) }
        } catch {
            for c in pool { c.close() }
            w.close()
            throw error
        }
        self.writer = ConnectionPool([w], name: "write")
        self.readers = ConnectionPool(pool, name: "read")
        guard case .sqlite(let path) = url.kind else {
            checkpointer = nil
            var extra: [Connection] = []
            do {
                for _ in 0..<Self.postgresLanes { extra.append(try open(.writer)) }
            } catch {
                for c in pool + extra { c.close() }
                w.close()
                throw error
            }
            lanes = extra.map { ConnectionPool([$0], name: "write-lane") }
            return
        }
        lanes = []
        do {
            checkpointer = try Checkpointer(path: path, busyTimeoutMillis: busyTimeoutMillis, policy: checkpoints)
        } catch {
            for c in pool { c.close() }
            w.close()
            throw error
        }
    }

    deinit { close() }

    /// Runs `body` in `BEGIN IMMEDIATE … COMMIT` on the writer. Any error
    /// thrown by `body` (or by COMMIT) rolls everything back and is rethrown.
    /// Do not call `write` from inside `write` on the same thread: the writer
    /// is not re-entrant (compose repository calls on the given connection).
    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        defer { restartWALIfDue() }
        return try writeLeavingWAL(body)
    }

    /// `write` without the WAL restart after it: the batch writer answers
    /// its writes first and calls `restartWALIfDue` then.
    func writeLeavingWAL<T>(_ body: (Connection) throws -> T) throws -> T {
        try writer.with { conn in try writeTransaction(conn, body) }
    }

    /// SQLite: when the checkpointer found the WAL long and still growing,
    /// copies the rest of it on the writer (holding it, so nothing is added
    /// meanwhile) so the next write starts the WAL over. A failure is only
    /// logged: the WAL stays long until a later pass, nothing is lost.
    func restartWALIfDue() {
        guard let checkpointer, checkpointer.takeRestartDue() else { return }
        writerCheckpoints.add(1, ordering: .relaxed)
        do {
            try writer.with { conn in try Checkpointer.finishRestart(conn) }
        } catch {
            Log.shared.warn("WAL checkpoint on the writer failed", ["error": "\(error)"])
        }
    }

    /// SQLite: the WAL's pages when the background checkpoint last ran, and
    /// the checkpoints the writer ran to make it start over (for /metrics);
    /// nil on PostgreSQL.
    public var walStatus: (pages: Int, writerCheckpoints: Int)? {
        guard let checkpointer else { return nil }
        return (checkpointer.walPages, writerCheckpoints.load(ordering: .relaxed))
    }

    /// Transactions waiting for the writer now (for tests of its fairness).
    var writersWaiting: Int { writer.waiting }

    /// Writer connections beside the writer (PostgreSQL). Two: while one
    /// lane's COMMIT waits for the server's WAL flush, the other's next
    /// transaction runs, which is what a single connection cannot do.
    static let postgresLanes = 2

    /// How many lanes `write(lane:)` has: 0 on SQLite (one writer is all a
    /// SQLite file allows), `postgresLanes` on PostgreSQL.
    public var writeLanes: Int { lanes.count }

    /// `write` on lane `lane` (0..<writeLanes), or on the writer when there
    /// are no lanes. Transactions on different lanes run at the same time;
    /// rows they both touch must be locked (`Connection.forUpdate`) in a
    /// consistent order, as with several hubs.
    public func write<T>(lane: Int, _ body: (Connection) throws -> T) throws -> T {
        guard !lanes.isEmpty else { return try write(body) }
        return try lanes[lane % lanes.count].with { conn in try writeTransaction(conn, body) }
    }

    /// One write transaction on a writer or lane connection. Credential
    /// changes are counted after it, committed or rolled back (a rollback
    /// costs one needless refill of a cache, never a stale answer).
    private func writeTransaction<T>(_ conn: Connection, _ body: (Connection) throws -> T) throws -> T {
        try conn.backend.ensureUsable()
        defer {
            if conn.changedCredentials {
                conn.changedCredentials = false
                credentialChanges.add(1, ordering: .releasing)
            }
        }
        return try Database.transaction(conn, begin: Database.beginWrite(conn), body)
    }

    /// Runs `body` on a reader connection inside `BEGIN … COMMIT`, so all its
    /// queries see one snapshot. Blocks while every reader is in use.
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try readers.with { conn in
            try conn.backend.ensureUsable()
            // PostgreSQL: REPEATABLE READ is its snapshot, as a SQLite reader's BEGIN.
            return try Database.transaction(conn, begin: conn.engine == .postgres ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN", body)
        }
    }

    /// Runs `body` on a reader connection without an explicit transaction:
    /// for one statement, which SQLite already runs on a consistent snapshot.
    /// Saves the BEGIN/COMMIT round trip on the hottest reads (token checks).
    public func readStatement<T>(_ body: (Connection) throws -> T) throws -> T {
        try readers.with { conn in
            try conn.backend.ensureUsable()
            do {
                return try body(conn)
            } catch where conn.backend.isBroken {
                // A read, so safe to run again on a new connection.
                try conn.backend.ensureUsable()
                return try body(conn)
            }
        }
    }

    /// Names of the migrations recorded in the database, in applied order.
    public func appliedMigrations() throws -> [String] {
        try read { c in try Migrations.applied(c) }
    }

    /// Writes a consistent copy of the database to `destination` while
    /// writers continue: SQLite's online backup API copies one reader
    /// snapshot into a temporary file in the destination's directory, which
    /// is fsynced and renamed into place, so `destination` is never a
    /// half-written file. The copy is a standalone file (rollback journal,
    /// no -wal needed).
    public func backup(to destination: String) throws {
        guard engine == .sqlite else {
            throw StoreError.misuse("backup copies a SQLite database; back PostgreSQL up with pg_dump (docs/operations.md)")
        }
        try FileHelpers.makeParentDirectory(of: destination)
        let tmp = destination + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        unlink(tmp)
        do {
            try read { src in
                // The first read fixes the snapshot the backup copies.
                _ = try src.scalar("SELECT count(*) FROM sqlite_schema")
                try Backup.copy(from: src.sqlite!.handle, toFile: tmp)
            }
            try FileHelpers.fsyncFile(tmp)
            // A stale -wal/-shm next to the destination would be replayed onto
            // the new file by SQLite: remove them before the rename.
            unlink(destination + "-wal")
            unlink(destination + "-shm")
            _ = try sys("rename") { rename(tmp, destination) }
            try FileHelpers.fsyncParentDirectory(of: destination)
        } catch let error as SystemError {
            unlink(tmp)
            throw StoreError(code: SQLITE_IOERR, message: "backup to \(destination): \(error)")
        } catch {
            unlink(tmp)
            throw error
        }
    }

    /// Closes every connection, waiting for borrowed readers and a running
    /// write to finish. Later calls throw "database is closed". Idempotent.
    /// Must not be called from inside `read`/`write`.
    public func close() {
        checkpointer?.stop()
        writer.close()
        for lane in lanes { lane.close() }
        readers.close()
    }

    // MARK: transactions

    /// SQLite: IMMEDIATE takes the write lock up front, so a transaction
    /// never fails half-way with SQLITE_BUSY when upgrading from read to
    /// write (another process, e.g. the CLI, may also write). PostgreSQL:
    /// READ COMMITTED, with row locks (`Connection.forUpdate`) and
    /// compare-and-set updates where several hubs may touch one row.
    static func beginWrite(_ c: Connection) -> String {
        c.engine == .postgres ? "BEGIN" : "BEGIN IMMEDIATE"
    }

    static func transaction<T>(_ c: Connection, begin: String, _ body: (Connection) throws -> T) throws -> T {
        do {
            try c.execute(begin)
        } catch where c.backend.isBroken {
            // The server went away since this connection was last used (a
            // restart, a failover): nothing has run yet, so reconnect and
            // begin again rather than fail this transaction too.
            try c.backend.ensureUsable()
            try c.execute(begin)
        }
        let result: T
        do {
            result = try body(c)
            // PostgreSQL: after a failed statement the transaction is aborted
            // and COMMIT quietly rolls back. The failure was caught and
            // dropped somewhere in `body`; losing the writes without an error
            // would be worse than failing here.
            if c.backend.transactionFailed {
                throw StoreError(code: SQLITE_ABORT, message: "a statement failed earlier in this transaction (its error was caught), "
                    + "so PostgreSQL rolled it back; nothing was written")
            }
            try c.execute("COMMIT")
        } catch {
            // COMMIT can fail too (e.g. a deferred foreign key); the
            // transaction may then still be open. Roll back whatever remains.
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            throw error
        }
        return result
    }

    /// The internal, typed-throws flavour used by migrations.
    static func writeTransaction<T>(_ c: Connection, _ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        do {
            return try transaction(c, begin: beginWrite(c)) { c in try body(c) }
        } catch let e as StoreError {
            throw e
        } catch {
            throw StoreError(code: SQLITE_ERROR, message: "\(error)")   // unreachable: body throws StoreError
        }
    }
}
