import CSQLite
import CShims

/// A prepared statement owned by one `SQLiteConnection` (and so one thread at a
/// time). Cached by SQL text and reused; always reset and unbound after use
/// so it never holds a read snapshot or a stale value open.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: SQLiteConnection
    /// Column names, built once. Shared by every `Row` this statement yields.
    private var names: [String]
    /// The bytes of the bound texts and blobs, which SQLite reads in place
    /// (`SQLITE_STATIC`) until `reset`. Bound `SQLITE_TRANSIENT`, SQLite
    /// allocated and freed a copy of every one: under a flood of pings, whose
    /// rows go in as multi-row inserts of a dozen texts each, that was 4 % of
    /// the batch writer. Reused, grown when needed, up to `arenaLimit`.
    private var arena = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// Bytes of `arena` the current bindings use (zeroed at `reset`).
    private var arenaUsed = 0
    /// Whether the current bindings use the arena.
    private var arenaOn = false
    /// Larger arguments (a big body) are bound with a copy, as before, so
    /// the cached statements do not keep large buffers.
    private static let arenaLimit = 16 * 1024

    init(_ connection: SQLiteConnection, sql: String) throws(StoreError) {
        let db = connection.handle
        // The tail pointer points into the C string, so it is read inside
        // withCString: the temporary buffer an implicit String-to-pointer
        // conversion makes is gone once prepare returns (reading it after was
        // a use-after-free that failed at random under load).
        let prepared = sql.withCString { cSQL -> (Int32, OpaquePointer?, Bool) in
            var stmt: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(db, cSQL, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, &tail)
            // prepare compiles only the first statement; silently ignoring the
            // rest would hide bugs, so anything but whitespace/semicolons is refused.
            var extra = false
            if rc == SQLITE_OK, var p = tail {
                while p.pointee != 0 {
                    let c = UInt8(bitPattern: p.pointee)
                    if c != 0x20 && c != 0x0A && c != 0x0D && c != 0x09 && c != 0x3B {
                        extra = true
                        break
                    }
                    p += 1
                }
            }
            return (rc, stmt, extra)
        }
        guard prepared.0 == SQLITE_OK, let stmt = prepared.1 else {
            throw StoreError.last(db, sql: sql, fallback: prepared.0)
        }
        if prepared.2 {
            sqlite3_finalize(stmt)
            throw StoreError.misuse("several statements in one call; use executeScript", sql: sql)
        }
        self.handle = stmt
        self.sql = sql
        self.connection = connection
        self.names = SQLiteStatement.readNames(stmt)
    }

    deinit {
        sqlite3_finalize(handle)
        arena.deallocate()
    }

    private static func readNames(_ stmt: OpaquePointer) -> [String] {
        let n = sqlite3_column_count(stmt)
        return (0..<n).map { String(cString: sqlite3_column_name(stmt, $0)) }
    }

    /// Column names; refreshed if an automatic re-prepare after a schema
    /// change altered the column count (e.g. `SELECT *`).
    var columnNames: [String] {
        if Int(sqlite3_column_count(handle)) != names.count { names = SQLiteStatement.readNames(handle) }
        return names
    }

    func bind(_ args: [SQLValue]) throws(StoreError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard args.count == expected else {
            throw StoreError(code: SQLITE_RANGE,
                             message: "statement takes \(expected) argument(s), got \(args.count)", sql: sql)
        }
        let transient = pt_sqlite_transient()
        var bytes = 0
        for arg in args {
            switch arg {
            case .text(let s): bytes += s.utf8.count
            case .blob(let b): bytes += b.count
            default: break
            }
        }
        prepareArena(bytes: bytes)
        for (i, arg) in args.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch arg {
            case .null:
                rc = sqlite3_bind_null(handle, idx)
            case .integer(let v):
                rc = sqlite3_bind_int64(handle, idx, v)
            case .real(let v):
                rc = sqlite3_bind_double(handle, idx, v)
            case .text(var s):
                if s.isEmpty {
                    // An empty String has no base address, and binding a nil
                    // pointer would store NULL rather than ''.
                    rc = sqlite3_bind_text(handle, idx, "", 0, transient)
                } else {
                    rc = s.withUTF8 { buf in
                        if let at = place(UnsafeRawBufferPointer(buf)) {
                            return sqlite3_bind_text(handle, idx, at.assumingMemoryBound(to: CChar.self), Int32(buf.count), nil)
                        }
                        return buf.withMemoryRebound(to: CChar.self) {
                            sqlite3_bind_text(handle, idx, $0.baseAddress, Int32($0.count), transient)
                        }
                    }
                }
            case .blob(let b):
                if b.isEmpty {
                    rc = sqlite3_bind_zeroblob(handle, idx, 0)
                } else {
                    rc = b.withUnsafeBytes { buf in
                        if let at = place(buf) { return sqlite3_bind_blob(handle, idx, at, Int32(buf.count), nil) }
                        return sqlite3_bind_blob(handle, idx, buf.baseAddress, Int32(buf.count), transient)
                    }
                }
            }
            guard rc == SQLITE_OK else { throw StoreError.last(connection.handle, sql: sql, fallback: rc) }
        }
    }

    /// Makes room for `bytes` of bound texts and blobs, or turns the arena
    /// off for this binding when they are more than `arenaLimit`.
    private func prepareArena(bytes: Int) {
        arenaUsed = 0
        arenaOn = bytes <= Self.arenaLimit
        if arenaOn && bytes > arena.count {
            arena.deallocate()
            arena = .allocate(byteCount: max(bytes, 256), alignment: 1)
        }
    }

    /// Copies `source` into the arena and returns where, or nil when it is
    /// to be bound as a copy instead.
    private func place(_ source: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        guard arenaOn, let from = source.baseAddress, let base = arena.baseAddress else { return nil }
        let at = base + arenaUsed
        at.copyMemory(from: from, byteCount: source.count)
        arenaUsed += source.count
        return UnsafeRawPointer(at)
    }

    /// Steps once: true when a row is available, false when done.
    func step() throws(StoreError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw StoreError.last(connection.handle, sql: sql, fallback: rc)
        }
    }

    /// Copies the current row out of SQLite.
    func currentValues() -> [SQLValue] {
        let n = sqlite3_column_count(handle)
        var values = [SQLValue]()
        values.reserveCapacity(Int(n))
        for i in 0..<n {
            switch sqlite3_column_type(handle, i) {
            case SQLITE_INTEGER:
                values.append(.integer(sqlite3_column_int64(handle, i)))
            case SQLITE_FLOAT:
                values.append(.real(sqlite3_column_double(handle, i)))
            case SQLITE_TEXT:
                // Pointer first, then byte count (SQLite's documented order).
                let p = sqlite3_column_text(handle, i)
                let len = Int(sqlite3_column_bytes(handle, i))
                if let p {
                    values.append(.text(String(decoding: UnsafeBufferPointer(start: p, count: len), as: UTF8.self)))
                } else {
                    values.append(.text(""))
                }
            case SQLITE_BLOB:
                let p = sqlite3_column_blob(handle, i)
                let len = Int(sqlite3_column_bytes(handle, i))
                if let p, len > 0 {
                    values.append(.blob(Array(UnsafeRawBufferPointer(start: p, count: len))))
                } else {
                    values.append(.blob([]))
                }
            default:
                values.append(.null)
            }
        }
        return values
    }

    /// Makes the statement reusable and drops bound values (which may be
    /// secrets), the arena's copies included.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        if arenaUsed > 0, let base = arena.baseAddress {
            base.initializeMemory(as: UInt8.self, repeating: 0, count: arenaUsed)
            arenaUsed = 0
        }
    }
}
