import Core

/// One database connection, on either engine. Not Sendable: a connection is
/// used by one thread at a time (the `Database` hands it out inside
/// `read`/`write`), which is why neither engine needs locking of its own.
///
/// Repositories write SQL once, in SQLite's spelling (`?` and `?N`
/// parameters, `INTEGER`, `BLOB`); on PostgreSQL `Dialect` rewrites it when
/// a statement is first prepared, so no caller knows which engine it talks to.
public final class Connection {
    public enum Role: Sendable { case writer, reader, checkpointer }

    let backend: any ConnectionBackend
    /// The SQLite file, or the PostgreSQL URL without its password.
    public let path: String
    public let role: Role
    public let engine: DatabaseEngine

    init(path: String, role: Role, busyTimeoutMillis: Int) throws(StoreError) {
        backend = try SQLiteConnection(path: path, role: role, busyTimeoutMillis: busyTimeoutMillis)
        self.path = path
        self.role = role
        engine = .sqlite
    }

    init(postgres url: DatabaseURL, role: Role) throws(StoreError) {
        backend = try PostgresConnection(url: url, readOnly: role == .reader)
        path = url.redacted
        self.role = role
        engine = .postgres
    }

    /// Set by a statement that changes what a bearer token authenticates as
    /// (a token deleted or narrowed, a user changed or deleted, a sign-in
    /// revoked); `Database` counts it once the transaction has ended
    /// (`credentialGeneration`), so a cache of checked credentials is never
    /// newer than the change that makes it wrong.
    var changedCredentials = false

    /// The SQLite handle, for SQLite-only work (online backup).
    var sqlite: SQLiteConnection? { backend as? SQLiteConnection }

    public func close() { backend.close() }

    /// Runs one statement, discarding any rows it returns.
    public func execute(_ sql: String, _ args: [SQLValue] = []) throws(StoreError) {
        _ = try backend.run(sql, args, rows: 0)
    }

    /// Runs one statement whose answer nobody needs (a hot-path INSERT or
    /// UPDATE). On PostgreSQL inside a transaction it is sent, pipelined,
    /// with the next statement that needs an answer or with the COMMIT, and
    /// its error is thrown there (the transaction is aborted either way);
    /// on SQLite, and outside transactions, it runs at once. Use it where a
    /// transaction writes several rows in a row: each saved round trip is
    /// what a single writer connection spends most of its time on.
    public func executeDeferred(_ sql: String, _ args: [SQLValue] = []) throws(StoreError) {
        try backend.enqueue(sql, args)
    }

    /// Runs one statement and returns all its rows.
    public func query(_ sql: String, _ args: [SQLValue] = []) throws(StoreError) -> [Row] {
        let r = try backend.run(sql, args, rows: Int.max)
        return r.rows.map { Row(columns: r.columns, values: $0) }
    }

    /// The first row, or nil. Add `LIMIT 1` when more rows could match and
    /// order matters.
    public func queryOne(_ sql: String, _ args: [SQLValue] = []) throws(StoreError) -> Row? {
        let r = try backend.run(sql, args, rows: 1)
        return r.rows.first.map { Row(columns: r.columns, values: $0) }
    }

    /// The first column of the first row, or nil when there is no row.
    public func scalar(_ sql: String, _ args: [SQLValue] = []) throws(StoreError) -> SQLValue? {
        try backend.run(sql, args, rows: 1).rows.first?.first
    }

    /// Runs an `INSERT … RETURNING id` and returns the new row's id (the one
    /// way to learn it on both engines).
    public func insertReturningID(_ sql: String, _ args: [SQLValue]) throws(StoreError) -> Int64 {
        guard let id = try scalar(sql, args)?.integerValue else {
            throw StoreError.misuse("insert returned no id", sql: sql)
        }
        return id
    }

    /// Runs several `;`-separated statements (migration text). No arguments.
    public func executeScript(_ sql: String) throws(StoreError) {
        try backend.executeScript(sql)
    }

    /// Rows changed by the last INSERT/UPDATE/DELETE on this connection.
    public var changes: Int { backend.changes }

    /// True inside BEGIN…COMMIT.
    public var isInTransaction: Bool { backend.isInTransaction }

    /// The spelling of "lock the rows this SELECT returns until COMMIT":
    /// ` FOR NO KEY UPDATE` on PostgreSQL, where several hubs (and write
    /// lanes) write at once; empty on SQLite, whose single writer already
    /// holds the whole database. NO KEY: the lock an UPDATE that keeps the
    /// key takes itself, which serialises every writer of the row but lets
    /// inserts whose foreign key points at it (pings, results) go on; our
    /// updates never change a primary key.
    public var forUpdate: String { engine == .postgres ? " FOR NO KEY UPDATE" : "" }

    /// ` FOR NO KEY UPDATE SKIP LOCKED` on PostgreSQL: lock what this SELECT
    /// returns and pass over rows another hub has locked (work queues).
    public var forUpdateSkipLocked: String { engine == .postgres ? " FOR NO KEY UPDATE SKIP LOCKED" : "" }
}
