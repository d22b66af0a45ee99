#if canImport(Glibc)
import Glibc
#endif
import CPostgres
import CSQLite
import Core

/// One libpq connection. Statements are prepared once per connection
/// (named `p1`, `p2`, …, cached by their SQLite-dialect text, rewritten by
/// `Dialect`) and run with the extended protocol; parameter types are left
/// to the server to infer from where each `$n` stands, and values travel as
/// text (bytea as binary), so an integer bound to a text column or a
/// numeric string bound to a bigint one behaves as it does on SQLite.
/// Results come back as text and are turned into `SQLValue`s by column type.
final class PostgresConnection: ConnectionBackend {
    private let url: DatabaseURL
    private let conn: OpaquePointer
    private let readOnly: Bool
    private struct Prepared {
        let name: String
        let parameters: Int
        let columns: [String]
        let types: [UInt32]
    }
    private var prepared: [String: Prepared] = [:]
    private var nextName = 0
    private static let cacheLimit = 512
    private var closed = false
    private(set) var changes = 0

    init(url: DatabaseURL, readOnly: Bool) throws(StoreError) {
        guard case .postgres(let conninfo) = url.kind else {
            throw StoreError.misuse("not a postgres url")
        }
        self.url = url
        self.readOnly = readOnly
        // expand_dbname = 1: `dbname` holds the whole URL; the other keys
        // add what a URL does not say.
        let keys = ["dbname", "application_name", "connect_timeout"]
        let values = [conninfo, "pingtxt", "10"]
        let c = Self.withCStrings(keys) { k in
            Self.withCStrings(values) { v in PQconnectdbParams(k, v, 1) }
        }
        guard let c else { throw StoreError(code: SQLITE_NOMEM, message: "libpq: out of memory") }
        conn = c
        guard PQstatus(c) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(c))
            PQfinish(c)
            closed = true
            throw StoreError(code: SQLITE_CANTOPEN, message: "cannot connect to PostgreSQL at \(url.redacted): \(message)")
        }
        do {
            try setUpSession()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func setUpSession() throws(StoreError) {
        // Notices ("relation already exists, skipping") would go to stderr.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        var setup = "SET client_encoding = 'UTF8'; SET TIME ZONE 'UTC'"
        // Readers refuse writes, as `PRAGMA query_only` does on SQLite.
        if readOnly { setup += "; SET default_transaction_read_only = on" }
        try executeScript(setup)
    }

    func close() {
        guard !closed else { return }
        closed = true
        PQfinish(conn)
    }

    func ensureUsable() throws(StoreError) {
        guard !closed else { throw StoreError.misuse("connection is closed") }
        guard PQstatus(conn) != CONNECTION_OK else { return }
        // The server restarted or the network dropped: reconnect with the
        // same parameters. Prepared statements died with the old session.
        PQreset(conn)
        prepared.removeAll()
        guard PQstatus(conn) == CONNECTION_OK else {
            throw StoreError(code: SQLITE_IOERR, message: "lost the connection to PostgreSQL at \(url.redacted): "
                + Self.trimmed(PQerrorMessage(conn)))
        }
        try setUpSession()
    }

    var isInTransaction: Bool {
        let s = PQtransactionStatus(conn)
        return s == PQTRANS_INTRANS || s == PQTRANS_INERROR || s == PQTRANS_ACTIVE
    }

    var transactionFailed: Bool { PQtransactionStatus(conn) == PQTRANS_INERROR }

    var isBroken: Bool { !closed && PQstatus(conn) != CONNECTION_OK }

    // MARK: statements

    func run(_ sql: String, _ args: [SQLValue], rows limit: Int) throws(StoreError) -> ResultSet {
        guard !closed else { throw StoreError.misuse("connection is closed", sql: sql) }
        if args.isEmpty && Self.isTransactionControl(sql) {
            // BEGIN/COMMIT/SAVEPOINT… are not worth preparing.
            try executeScript(sql)
            return .empty
        }
        let p = try statement(sql)
        guard args.count == p.parameters else {
            throw StoreError(code: SQLITE_RANGE, message: "statement takes \(p.parameters) argument(s), got \(args.count)", sql: sql)
        }
        let answer = try PostgresParameters.withEncoded(args, sql: sql) { values, lengths, formats in
            PQexecPrepared(conn, p.name, Int32(args.count), values, lengths, formats, 0)
        }
        defer { PQclear(answer) }
        try check(answer, sql: sql)
        guard let res = answer else { return .empty }
        noteChanges(res)
        guard limit > 0 else { return .empty }
        let n = min(Int(PQntuples(res)), limit)
        var out = ResultSet(columns: p.columns, rows: [])
        out.rows.reserveCapacity(n)
        for r in 0..<n {
            var row = [SQLValue]()
            row.reserveCapacity(p.types.count)
            for col in 0..<p.types.count {
                row.append(PostgresValues.decode(res, Int32(r), Int32(col), type: p.types[col]))
            }
            out.rows.append(row)
        }
        return out
    }

    func executeScript(_ sql: String) throws(StoreError) {
        guard !closed else { throw StoreError.misuse("connection is closed", sql: sql) }
        let text = try Dialect.postgres(sql).sql
        let res = PQexec(conn, text)
        defer { PQclear(res) }
        try check(res, sql: sql)
        noteChanges(res)
    }

    private func statement(_ sql: String) throws(StoreError) -> Prepared {
        if let p = prepared[sql] { return p }
        if prepared.count >= Self.cacheLimit {
            try executeScript("DEALLOCATE ALL")
            prepared.removeAll(keepingCapacity: true)
        }
        let (text, _) = try Dialect.postgres(sql)
        nextName += 1
        let name = "p\(nextName)"
        let made = PQprepare(conn, name, text, 0, nil)
        defer { PQclear(made) }
        try check(made, sql: sql)
        let described = PQdescribePrepared(conn, name)
        defer { PQclear(described) }
        try check(described, sql: sql)
        let fields = Int32(PQnfields(described))
        let p = Prepared(name: name, parameters: Int(PQnparams(described)),
                         columns: (0..<fields).map { String(cString: PQfname(described, $0)) },
                         types: (0..<fields).map { PQftype(described, $0) })
        prepared[sql] = p
        return p
    }

    private func check(_ res: OpaquePointer?, sql: String) throws(StoreError) {
        guard let res else {
            throw StoreError(code: SQLITE_IOERR, message: "PostgreSQL: " + Self.trimmed(PQerrorMessage(conn)), sql: sql)
        }
        let status = PQresultStatus(res)
        guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY else { return }
        throw PostgresErrors.error(res, connection: conn, sql: sql)
    }

    private func noteChanges(_ res: OpaquePointer?) {
        guard let res, let status = PQcmdStatus(res) else { return }
        let s = String(cString: status)
        guard s.hasPrefix("INSERT") || s.hasPrefix("UPDATE") || s.hasPrefix("DELETE") || s.hasPrefix("MERGE") else { return }
        changes = Int(String(cString: PQcmdTuples(res))) ?? 0
    }

    private static func isTransactionControl(_ sql: String) -> Bool {
        let word = sql.utf8.prefix { $0 != 0x20 && $0 != 0x0A && $0 != 0x3B }
        switch String(decoding: word, as: UTF8.self).uppercased() {
        case "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "END": return true
        default: return false
        }
    }

    static func trimmed(_ p: UnsafePointer<CChar>?) -> String {
        guard let p else { return "" }
        var s = String(cString: p)
        while s.last == "\n" || s.last == " " { s.removeLast() }
        return s.replacingNewlines()
    }

    /// A NULL-terminated array of C strings for libpq's keyword/value calls.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { for c in copies { free(c) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension String {
    /// libpq messages span lines ("DETAIL: …", tab-indented hints); a log
    /// line or a one-line error must not.
    fileprivate func replacingNewlines() -> String {
        var out: [UInt8] = []
        for b in utf8 {
            let c: UInt8 = b < 0x20 || b == 0x7F ? 0x20 : b
            if c == 0x20 && out.last == 0x20 { continue }
            out.append(c)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
