import CSQLite

/// One SQLite connection. Not Sendable: a connection is used by one thread at
/// a time (the `Database` hands it out inside `read`/`write`), which is why it
/// can be opened with `SQLITE_OPEN_NOMUTEX` and skip SQLite's own locking.
public final class Connection {
    public enum Role: Sendable { case writer, reader, checkpointer }

    let handle: OpaquePointer
    public let path: String
    public let role: Role
    /// Prepared statements keyed by SQL text. The SQL used by the hub is a
    /// fixed set of literals, so the cache stays small; the cap only guards
    /// against a caller building SQL dynamically.
    private var cache: [String: Statement] = [:]
    private static let cacheLimit = 256
    private var closed = false

    init(path: String, role: Role, busyTimeoutMillis: Int) throws(StoreError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let err = db.map { StoreError.last($0) } ?? StoreError(code: rc, message: "cannot open database")
            if let db { sqlite3_close_v2(db) }
            throw StoreError(code: err.code, extendedCode: err.extendedCode,
                             message: "open \(path): \(err.message)")
        }
        self.handle = db
        self.path = path
        self.role = role
        do {
            try configure(busyTimeoutMillis: busyTimeoutMillis)
        } catch {
            close()
            throw error
        }
    }

    private func configure(busyTimeoutMillis: Int) throws(StoreError) {
        sqlite3_extended_result_codes(handle, 1)
        // Wait (sleeping, with backoff) instead of failing at once when another
        // process or connection holds the lock.
        sqlite3_busy_timeout(handle, Int32(clamping: busyTimeoutMillis))
        try executeScript("PRAGMA foreign_keys = ON")
        switch role {
        case .writer:
            // WAL: readers never block the writer and the writer never blocks
            // readers; each reader sees a consistent snapshot. Persistent in
            // the file, so only the writer needs to set it.
            let mode = try scalar("PRAGMA journal_mode = WAL")
            if case .text(let m) = mode, m.lowercased() != "wal", path != ":memory:" {
                throw StoreError(code: SQLITE_ERROR, message: "cannot enable WAL (journal_mode is \(m))")
            }
            // NORMAL in WAL mode syncs the WAL only at checkpoints. A committed
            // transaction is in the WAL file (OS page cache) when COMMIT
            // returns, so it survives a process crash or kill -9; only an OS
            // crash or power loss can lose the last transactions, and the
            // database is never corrupted. FULL would fsync every commit.
            try executeScript("PRAGMA synchronous = NORMAL")
            // Checkpoints (copying the WAL into the database, and the fsync
            // that comes with them) run on the checkpointer's own connection
            // and thread, not inside a commit on the write path.
            try executeScript("PRAGMA wal_autocheckpoint = 0")
        case .checkpointer:
            try executeScript("PRAGMA synchronous = NORMAL")
        case .reader:
            // A reader that writes would deadlock-prone fight the writer for
            // the lock and bypass write serialisation: make that an error.
            try executeScript("PRAGMA query_only = ON")
        }
    }

    deinit { close() }

    /// Finalizes cached statements and closes the handle. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        cache.removeAll()   // finalizes statements (Statement.deinit)
        sqlite3_close_v2(handle)
    }

    // MARK: statements

    func statement(_ sql: String) throws(StoreError) -> Statement {
        if let s = cache[sql] { return s }
        guard !closed else { throw StoreError.misuse("connection is closed", sql: sql) }
        let s = try Statement(self, sql: sql)
        if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[sql] = s
        return s
    }

    /// Runs one statement, discarding any rows it returns.
    public func execute(_ sql: String, _ args: [SQLValue] = []) throws(StoreError) {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(args)
        while try s.step() {}
    }

    /// Runs one statement and returns all its rows.
    public func query(_ sql: String, _ args: [SQLValue] = []) throws(StoreError) -> [Row] {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(args)
        var rows: [Row] = []
        guard try s.step() else { return rows }
        let names = s.columnNames
        repeat {
            rows.append(Row(columns: names, values: s.currentValues()))
        } while try s.step()
        return rows
    }

    /// The first row, or nil. The statement is reset after the first row, so
    /// add `LIMIT 1` when more rows could match and order matters.
    public func queryOne(_ sql: String, _ args: [SQLValue] = []) throws(StoreError) -> Row? {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(args)
        guard try s.step() else { return nil }
        return Row(columns: s.columnNames, values: s.currentValues())
    }

    /// The first column of the first row, or nil when there is no row.
    public func scalar(_ sql: String, _ args: [SQLValue] = []) throws(StoreError) -> SQLValue? {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(args)
        guard try s.step(), sqlite3_column_count(s.handle) > 0 else { return nil }
        return s.currentValues()[0]
    }

    /// Runs several `;`-separated statements (migration text). Not cached,
    /// no arguments.
    public func executeScript(_ sql: String) throws(StoreError) {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        guard rc == SQLITE_OK else {
            let ext = sqlite3_extended_errcode(handle)
            let message = err.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(err)
            throw StoreError(code: rc, extendedCode: ext & 0xFF == rc & 0xFF ? ext : rc, message: message, sql: sql)
        }
    }

    /// Rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT/UPDATE/DELETE on this connection.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// True inside BEGIN…COMMIT.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}
