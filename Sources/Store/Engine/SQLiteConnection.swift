import CShims
import CSQLite

/// One SQLite connection, opened with `SQLITE_OPEN_NOMUTEX`: SQLite's own
/// locking is skipped because `Connection` is used by one thread at a time.
final class SQLiteConnection: ConnectionBackend {
    let handle: OpaquePointer
    let path: String
    /// Prepared statements keyed by SQL text. The SQL used by the hub is a
    /// fixed set of literals, so the cache stays small; the cap only guards
    /// against a caller building SQL dynamically.
    private var cache: [String: SQLiteStatement] = [:]
    private static let cacheLimit = 256
    private var closed = false

    /// Once, before the process's first open: SQLite otherwise gives every
    /// connection a block of 20 cache pages (~87 KB, every page written) at
    /// its first transaction, whether it reads them or not; an idle hub's
    /// connections read a few. Pages are then allocated one by one as read
    /// (and kept, up to `cache_size`). Too late (SQLite already in use) only
    /// leaves SQLite's default.
    private static let processSetUp: Void = { _ = pt_sqlite_no_page_prealloc() }()

    init(path: String, role: Connection.Role, busyTimeoutMillis: Int) throws(StoreError) {
        _ = Self.processSetUp
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
        do {
            try configure(role: role, busyTimeoutMillis: busyTimeoutMillis)
        } catch {
            close()
            throw error
        }
    }

    private func configure(role: Connection.Role, busyTimeoutMillis: Int) throws(StoreError) {
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
            let mode = try run("PRAGMA journal_mode = WAL", [], rows: 1).rows.first?.first
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
            // A WAL that starts over is rewritten from its beginning, not cut:
            // one that grew past this while a long read kept it from
            // restarting (`Checkpointer`) is cut back to it at the first
            // commit after the restart (https://www.sqlite.org/pragma.html#pragma_journal_size_limit).
            try executeScript("PRAGMA journal_size_limit = \(Self.walSizeLimitBytes)")
        case .checkpointer:
            try executeScript("PRAGMA synchronous = NORMAL")
        case .reader:
            // A reader that writes would deadlock-prone fight the writer for
            // the lock and bypass write serialisation: make that an error.
            try executeScript("PRAGMA query_only = ON")
        }
    }

    /// The WAL's size after a restart: twice the 64 MB at which the writer
    /// makes it restart, so a WAL that stayed in bounds is never cut and
    /// grown again.
    static let walSizeLimitBytes = 128 << 20

    deinit { close() }

    /// Finalizes cached statements and closes the handle. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        cache.removeAll()   // finalizes statements (SQLiteStatement.deinit)
        sqlite3_close_v2(handle)
    }

    private func statement(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let s = cache[sql] { return s }
        guard !closed else { throw StoreError.misuse("connection is closed", sql: sql) }
        let s = try SQLiteStatement(self, sql: sql)
        if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[sql] = s
        return s
    }

    /// No round trips to save in-process: at once.
    func enqueue(_ sql: String, _ args: [SQLValue]) throws(StoreError) {
        _ = try run(sql, args, rows: 0)
    }

    func run(_ sql: String, _ args: [SQLValue], rows limit: Int) throws(StoreError) -> ResultSet {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(args)
        guard try s.step() else { return .empty }
        if limit == 0 {
            while try s.step() {}
            return .empty
        }
        var result = ResultSet(columns: s.columnNames, rows: [s.currentValues()])
        while result.rows.count < limit, try s.step() {
            result.rows.append(s.currentValues())
        }
        return result
    }

    func executeScript(_ sql: String) throws(StoreError) {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        guard rc == SQLITE_OK else {
            let ext = sqlite3_extended_errcode(handle)
            let message = err.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(err)
            throw StoreError(code: rc, extendedCode: ext & 0xFF == rc & 0xFF ? ext : rc, message: message, sql: sql)
        }
    }

    var changes: Int { Int(sqlite3_changes64(handle)) }

    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    var transactionFailed: Bool { false }

    /// A SQLite file does not go away between statements.
    func ensureUsable() throws(StoreError) {}

    var isBroken: Bool { false }
}
