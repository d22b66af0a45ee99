/// What one engine's connection does for `Connection`. Two implementations:
/// `SQLiteConnection` (the embedded default) and `PostgresConnection`
/// (libpq). Everything above this protocol — repositories, transactions,
/// the batch writer — is the same for both; the SQL they pass is written
/// once in SQLite's spelling and `Dialect` rewrites it for PostgreSQL.
///
/// Not Sendable, like `Connection`: one thread at a time.
protocol ConnectionBackend: AnyObject {
    /// Runs one statement. `rows` says how many result rows to copy out:
    /// 0 (discard), 1 (the first) or `Int.max` (all).
    func run(_ sql: String, _ args: [SQLValue], rows: Int) throws(StoreError) -> ResultSet
    /// Runs a statement whose answer nobody waits for, now or (PostgreSQL,
    /// inside a transaction) with the next statement that needs an answer.
    func enqueue(_ sql: String, _ args: [SQLValue]) throws(StoreError)
    /// Runs several `;`-separated statements without arguments.
    func executeScript(_ sql: String) throws(StoreError)
    /// Rows changed by the last INSERT/UPDATE/DELETE.
    var changes: Int { get }
    /// True inside BEGIN…COMMIT (also when the transaction has failed).
    var isInTransaction: Bool { get }
    /// True when a statement failed inside the open transaction and the
    /// engine has aborted it (PostgreSQL; SQLite rolls back the statement only).
    var transactionFailed: Bool { get }
    /// Makes a broken connection usable again (PostgreSQL: the server
    /// restarted or the network dropped), or throws. Called before each
    /// transaction, never inside one.
    func ensureUsable() throws(StoreError)
    /// The connection is known to be dead (a statement just failed because
    /// the server went away); `ensureUsable` would reconnect.
    var isBroken: Bool { get }
    func close()
}

/// Rows copied out of one statement, with the column names shared.
struct ResultSet {
    var columns: [String]
    var rows: [[SQLValue]]
    static let empty = ResultSet(columns: [], rows: [])
}
