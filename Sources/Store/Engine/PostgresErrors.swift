import CPostgres
import CSQLite

/// PostgreSQL's SQLSTATE classes in the module's one error vocabulary
/// (SQLite's result codes), so callers keep telling a duplicate (409) from
/// a busy database (503) without knowing the engine. The SQLSTATE itself is
/// kept in `StoreError.sqlState`.
enum PostgresErrors {
    static func error(_ res: OpaquePointer, connection: OpaquePointer, sql: String?) -> StoreError {
        var state = field(res, "C") ?? ""
        // libpq's own failures carry no SQLSTATE; a dead connection is
        // PostgreSQL's connection_failure.
        if state.isEmpty && PQstatus(connection) != CONNECTION_OK { state = "08006" }
        var message = field(res, "M") ?? PostgresConnection.trimmed(PQresultErrorMessage(res))
        if let detail = field(res, "D") { message += " (\(detail))" }
        if message.isEmpty { message = PostgresConnection.trimmed(PQerrorMessage(connection)) }
        let (code, extended) = codes(for: state)
        return StoreError(code: code, extendedCode: extended, message: message, sql: sql, sqlState: state.isEmpty ? nil : state)
    }

    static func codes(for state: String) -> (Int32, Int32) {
        switch state {
        case "23505": return (SQLITE_CONSTRAINT, StoreError.constraintUnique)
        case "23503": return (SQLITE_CONSTRAINT, 787)      // SQLITE_CONSTRAINT_FOREIGNKEY
        case "23502": return (SQLITE_CONSTRAINT, 1299)     // SQLITE_CONSTRAINT_NOTNULL
        case "23514": return (SQLITE_CONSTRAINT, 275)      // SQLITE_CONSTRAINT_CHECK
        // Serialization failure, deadlock, lock not available: try again later.
        case "40001", "40P01", "55P03": return (SQLITE_BUSY, SQLITE_BUSY)
        case "57014": return (SQLITE_INTERRUPT, SQLITE_INTERRUPT)
        case "25006": return (SQLITE_READONLY, SQLITE_READONLY)
        default:
            if state.hasPrefix("23") { return (SQLITE_CONSTRAINT, SQLITE_CONSTRAINT) }
            // Connection exceptions, and the server shutting down.
            if state.hasPrefix("08") || state.hasPrefix("57P") { return (SQLITE_IOERR, SQLITE_IOERR) }
            if state.hasPrefix("22") { return (SQLITE_MISMATCH, SQLITE_MISMATCH) }
            return (SQLITE_ERROR, SQLITE_ERROR)
        }
    }

    private static func field(_ res: OpaquePointer, _ code: Character) -> String? {
        guard let p = PQresultErrorField(res, Int32(code.asciiValue!)) else { return nil }
        let s = String(cString: p)
        return s.isEmpty ? nil : s
    }
}
