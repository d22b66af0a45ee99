import CSQLite

/// The one error type of the Store module, on both engines. It carries
/// SQLite's result codes (PostgreSQL's SQLSTATEs are mapped onto them, see
/// `PostgresErrors`) so callers can tell a duplicate (409) from a busy
/// database (503) from a bug (500) without parsing messages.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// Primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    public let code: Int32
    /// Extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …); equals `code` when SQLite gave none.
    public let extendedCode: Int32
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?
    /// PostgreSQL's SQLSTATE (`23505`, `40001`, …); nil on SQLite.
    public let sqlState: String?

    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil, sqlState: String? = nil) {
        self.code = code & 0xFF
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.sqlState = sqlState
    }

    /// The error currently recorded on a connection handle. Reliable because a
    /// handle is only ever used by one thread at a time.
    static func last(_ db: OpaquePointer?, sql: String? = nil, fallback: Int32 = SQLITE_ERROR) -> StoreError {
        guard let db else { return StoreError(code: fallback, message: "out of memory", sql: sql) }
        let ext = sqlite3_extended_errcode(db)
        return StoreError(code: ext, extendedCode: ext, message: String(cString: sqlite3_errmsg(db)), sql: sql)
    }

    /// Misuse of this module's API (wrong argument count, closed database…).
    static func misuse(_ message: String, sql: String? = nil) -> StoreError {
        StoreError(code: SQLITE_MISUSE, message: message, sql: sql)
    }

    // Extended codes are C macros built with shifts; Swift does not import
    // them, so their documented values are spelled out here.
    static let constraintPrimaryKey: Int32 = 1555   // SQLITE_CONSTRAINT | (6 << 8)
    static let constraintUnique: Int32 = 2067       // SQLITE_CONSTRAINT | (8 << 8)

    /// A UNIQUE or PRIMARY KEY constraint failed (e.g. duplicate email).
    public var isUniqueViolation: Bool {
        extendedCode == Self.constraintUnique || extendedCode == Self.constraintPrimaryKey
    }

    /// The database stayed locked past the busy timeout.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// The database server could not be reached (PostgreSQL: refused,
    /// timed out, the server going down); worth trying again later.
    public var isUnreachable: Bool { code == SQLITE_CANTOPEN && sqlState == nil && message.hasPrefix("cannot connect") }

    /// libpq could not be loaded (`LibPQ.open`): the message says what to
    /// install; trying again will not help.
    public var isClientLibraryMissing: Bool {
        code == SQLITE_CANTOPEN && sqlState == nil && message.hasPrefix(LibPQ.unavailable)
    }

    /// Any constraint (UNIQUE, CHECK, NOT NULL, FOREIGN KEY…).
    public var isConstraint: Bool { code == SQLITE_CONSTRAINT }

    public var description: String {
        var text: String
        if let sqlState {
            text = "PostgreSQL error \(sqlState)"
        } else {
            text = "SQLite error \(code)"
            if extendedCode != code { text += "/\(extendedCode)" }
        }
        text += ": \(message)"
        if let sql { text += " [\(sql)]" }
        return text
    }
}
