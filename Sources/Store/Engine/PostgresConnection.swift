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
    /// Bumped whenever the prepared statements are dropped, so a pipeline
    /// that was preparing its statements knows its earlier names died.
    private var generation = 0
    private var nextName = 0
    /// Deferred statements of the open transaction, not sent yet (see `enqueue`).
    private var pending: [(sql: String, args: [SQLValue])] = []
    /// A deferred statement's error found while nothing could throw it
    /// (reading `changes`); the next statement throws it.
    private var deferredError: StoreError?
    /// More deferred statements than this are sent without waiting for a
    /// statement that needs an answer: the pipeline's buffers stay small.
    private static let pipelineLimit = 256
    private static let cacheLimit = 512
    private var closed = false
    private var lastChanges = 0

    var changes: Int {
        // Counting needs the deferred statements' answers.
        if !pending.isEmpty {
            do { _ = try pipeline(nil) } catch { deferredError = error }
        }
        return lastChanges
    }

    init(url: DatabaseURL, readOnly: Bool) throws(StoreError) {
        guard case .postgres(let conninfo) = url.kind else {
            throw StoreError.misuse("not a postgres url")
        }
        self.url = url
        self.readOnly = readOnly
        // expand_dbname = 1: `dbname` holds the whole URL; the other keys
        // add what a URL does not say.
        switch LibPQ.connect([("dbname", conninfo), ("application_name", "pingtxt"), ("connect_timeout", "10")]) {
        case .success(let c): conn = c
        case .failure(let f):
            if let unavailable = f.unavailable { throw unavailable }
            throw StoreError(code: SQLITE_CANTOPEN, message: "cannot connect to PostgreSQL at \(url.redacted): \(f.message)")
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
        generation += 1
        pending.removeAll()
        deferredError = nil
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
        if let error = deferredError {
            deferredError = nil
            pending.removeAll()
            throw error
        }
        if args.isEmpty, let control = Self.transactionControl(sql) {
            switch control {
            case .rollback:
                // What was deferred is undone anyway: never send it.
                pending.removeAll()
            case .rollbackTo:
                // Everything deferred came after the latest SAVEPOINT (which
                // sent what was queued before it), so the rollback undoes it;
                // send it for the order of the protocol, ignore its errors.
                if !pending.isEmpty { _ = try? pipeline(nil) }
            case .other:
                // COMMIT, SAVEPOINT, RELEASE: the deferred statements first;
                // an error among them fails this statement (a COMMIT then
                // does not happen, and the caller rolls back).
                if !pending.isEmpty { _ = try pipeline(nil) }
            }
            // BEGIN/COMMIT/SAVEPOINT… are not worth preparing.
            try exec(sql)
            return .empty
        }
        if !pending.isEmpty { return try pipeline((sql, args, limit)) }
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
        return rows(of: res, p, limit: limit)
    }

    private func rows(of res: OpaquePointer, _ p: Prepared, limit: Int) -> ResultSet {
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
        if !pending.isEmpty { _ = try pipeline(nil) }
        try exec(sql)
    }

    /// One simple-protocol round trip, with nothing deferred in front of it.
    private func exec(_ sql: String) throws(StoreError) {
        let text = try Dialect.postgres(sql).sql
        let res = PQexec(conn, text)
        defer { PQclear(res) }
        try check(res, sql: sql)
        noteChanges(res)
    }

    private func statement(_ sql: String) throws(StoreError) -> Prepared {
        if let p = prepared[sql] { return p }
        if prepared.count >= Self.cacheLimit {
            try exec("DEALLOCATE ALL")
            prepared.removeAll(keepingCapacity: true)
            generation += 1
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
        lastChanges = Int(String(cString: PQcmdTuples(res))) ?? 0
    }

    private enum Control { case rollback, rollbackTo, other }

    private static func transactionControl(_ sql: String) -> Control? {
        let word = sql.utf8.prefix { $0 != 0x20 && $0 != 0x0A && $0 != 0x3B }
        switch String(decoding: word, as: UTF8.self).uppercased() {
        case "ROLLBACK":
            let rest = sql.utf8.dropFirst(word.count).drop { $0 == 0x20 || $0 == 0x0A }
            return String(decoding: rest.prefix(2), as: UTF8.self).uppercased() == "TO" ? .rollbackTo : .rollback
        case "BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "END": return .other
        default: return nil
        }
    }

    static func trimmed(_ p: UnsafePointer<CChar>?) -> String { LibPQ.oneLine(p) }
}

extension PostgresConnection {
    // MARK: deferred statements, sent as one pipeline

    /// A statement whose answer nobody waits for (an INSERT or UPDATE on a
    /// hot path). Inside a transaction it is queued and sent, in libpq's
    /// pipeline mode, together with the next statement that needs an answer
    /// or with the COMMIT: one round trip for several statements instead of
    /// one each, which is what bounds a single writer connection on a server
    /// over a network (`bench/README.md`, "PostgreSQL"). Outside a
    /// transaction there is nothing to join: it runs at once.
    ///
    /// Its error is thrown by that later statement. Inside a transaction
    /// that changes nothing: PostgreSQL aborts the whole transaction at the
    /// first error anyway, and `Database.transaction` never commits one.
    func enqueue(_ sql: String, _ args: [SQLValue]) throws(StoreError) {
        guard !closed else { throw StoreError.misuse("connection is closed", sql: sql) }
        guard isInTransaction, deferredError == nil else {
            _ = try run(sql, args, rows: 0)
            return
        }
        pending.append((sql, args))
        if pending.count >= Self.pipelineLimit { _ = try pipeline(nil) }
    }

    /// Sends the deferred statements and `last` (if any) in one pipeline,
    /// then reads every answer: the first error wins (the server skips the
    /// rest, `PGRES_PIPELINE_ABORTED`); `last`'s rows are returned.
    /// libpq docs, "Pipeline Mode" (postgresql.org/docs/current/libpq-pipeline-mode.html):
    /// each query's results end with a NULL, the Sync with
    /// `PGRES_PIPELINE_SYNC`; only then may pipeline mode be left.
    func pipeline(_ last: (sql: String, args: [SQLValue], limit: Int)?) throws(StoreError) -> ResultSet {
        var statements = pending
        pending.removeAll(keepingCapacity: true)
        if let last { statements.append((last.sql, last.args)) }
        // Prepare before entering pipeline mode (PQprepare is synchronous);
        // if the cache was dropped midway, the earlier names died: again.
        var plans: [Prepared] = []
        repeat {
            let before = generation
            plans.removeAll(keepingCapacity: true)
            for s in statements { plans.append(try statement(s.sql)) }
            if before == generation { break }
        } while true
        for (s, p) in zip(statements, plans) where s.args.count != p.parameters {
            throw StoreError(code: SQLITE_RANGE, message: "statement takes \(p.parameters) argument(s), got \(s.args.count)",
                             sql: s.sql)
        }
        guard PQenterPipelineMode(conn) == 1 else { throw failure("cannot enter pipeline mode", sql: statements[0].sql) }
        var synced = false
        defer { leavePipeline(synced: synced) }
        for (s, p) in zip(statements, plans) {
            let sent = try PostgresParameters.withEncoded(s.args, sql: s.sql) { values, lengths, formats in
                PQsendQueryPrepared(conn, p.name, Int32(s.args.count), values, lengths, formats, 0)
            }
            guard sent == 1 else { throw failure("PostgreSQL", sql: s.sql) }
        }
        guard PQpipelineSync(conn) == 1 else { throw failure("PostgreSQL", sql: statements[0].sql) }
        synced = true
        var firstError: StoreError?
        var out = ResultSet.empty
        for (i, (s, p)) in zip(statements, plans).enumerated() {
            while let res = PQgetResult(conn) {
                defer { PQclear(res) }
                let status = PQresultStatus(res)
                if status == PGRES_PIPELINE_ABORTED { continue }
                if status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY {
                    if firstError == nil { firstError = PostgresErrors.error(res, connection: conn, sql: s.sql) }
                    continue
                }
                noteChanges(res)
                if let last, i == statements.count - 1 { out = rows(of: res, p, limit: last.limit) }
            }
        }
        if let firstError { throw firstError }
        if PQstatus(conn) != CONNECTION_OK { throw failure("PostgreSQL", sql: statements[0].sql) }
        return out
    }

    /// Reads up to the Sync and leaves pipeline mode, whatever happened
    /// before (a failed send leaves answers the server still owes, and
    /// without a Sync libpq would not flush what it buffered).
    private func leavePipeline(synced: Bool) {
        if !synced { _ = PQpipelineSync(conn) }
        var guardCount = 0
        while PQexitPipelineMode(conn) != 1 && PQstatus(conn) == CONNECTION_OK && guardCount < 100_000 {
            guardCount += 1
            guard let res = PQgetResult(conn) else { continue }
            PQclear(res)
        }
    }

    private func failure(_ what: String, sql: String) -> StoreError {
        StoreError(code: SQLITE_IOERR, message: "\(what): " + Self.trimmed(PQerrorMessage(conn)), sql: sql)
    }
}
