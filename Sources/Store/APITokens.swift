/// A row of `api_tokens`, without the hash (which never leaves the store).
public struct APITokenRecord: Sendable, Equatable {
    public var id: Int64
    public var userID: Int64
    public var name: String
    /// "read" or "write".
    public var scope: String
    public var createdAt: Int64
    public var expiresAt: Int64?
    public var lastUsedAt: Int64?

    public init(id: Int64, userID: Int64, name: String, scope: String, createdAt: Int64, expiresAt: Int64?,
                lastUsedAt: Int64?) {
        self.id = id
        self.userID = userID
        self.name = name
        self.scope = scope
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }

    init(row r: Row) throws(StoreError) {
        self.init(id: try r.int("id"), userID: try r.int("user_id"), name: try r.text("name"),
                  scope: try r.text("scope"), createdAt: try r.int("created_at"),
                  expiresAt: try r.optionalInt("expires_at"), lastUsedAt: try r.optionalInt("last_used_at"))
    }
}

/// Queries on `api_tokens` (`pmk_` tokens, stored as SHA-256 only).
public enum APITokens {
    static let columns = "id, user_id, name, scope, created_at, expires_at, last_used_at"
    /// Built once: interpolating on every call would cost an allocation per query.
    enum SQL {
        static let insert = """
            INSERT INTO api_tokens (user_id, name, scope, token_hash, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?) RETURNING \(columns)
            """
        static let list = "SELECT \(columns) FROM api_tokens WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?"
        static let findByID = "SELECT \(columns) FROM api_tokens WHERE id = ?"
    }

    /// Unknown user → `isConstraint` (foreign key); duplicate hash →
    /// `isUniqueViolation`. Whether a readonly user may get `write` is the
    /// caller's rule to check (SPEC: 403 / CLI exit 1).
    public static func insert(_ c: Connection, userID: Int64, name: String, scope: String, hash: [UInt8], now: Int64,
                              expiresAt: Int64?) throws(StoreError) -> APITokenRecord {
        let row = try c.queryOne(SQL.insert, [
            .integer(userID), .text(name), .text(scope), .blob(hash), .integer(now), SQLValue(expiresAt)])
        guard let row else { throw StoreError.misuse("INSERT … RETURNING gave no row") }
        return try APITokenRecord(row: row)
    }

    /// The token with that SHA-256 hash and its user, in one query (JOIN); nil
    /// if none. Expiry is NOT checked here (the caller decides with its clock).
    /// Runs on every authenticated request: one cached statement, one index
    /// lookup on the UNIQUE token_hash, one on users' primary key.
    public static func findByHash(_ c: Connection, hash: [UInt8]) throws(StoreError)
        -> (token: APITokenRecord, user: UserRecord)? {
        let row = try c.queryOne("""
            SELECT t.id, t.user_id, t.name, t.scope, t.created_at, t.expires_at, t.last_used_at,
                u.id AS u_id, u.email AS u_email, u.name AS u_name, u.role AS u_role,
                u.password_hash AS u_password_hash, u.totp_secret AS u_totp_secret,
                u.totp_enabled AS u_totp_enabled, u.created_at AS u_created_at, u.updated_at AS u_updated_at
            FROM api_tokens t JOIN users u ON u.id = t.user_id
            WHERE t.token_hash = ?
            """, [.blob(hash)])
        guard let row else { return nil }
        return (try APITokenRecord(row: row), try UserRecord(row: row, prefix: "u_"))
    }

    /// A user's tokens by id, keyset-paginated.
    public static func list(_ c: Connection, userID: Int64, afterID: Int64?, limit: Int) throws(StoreError)
        -> [APITokenRecord] {
        try c.query(SQL.list,
                    [.integer(userID), .integer(afterID ?? Int64.min), .integer(Int64(max(0, limit)))])
            .map { r throws(StoreError) in try APITokenRecord(row: r) }
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> APITokenRecord? {
        try c.queryOne(SQL.findByID, [.integer(id)])
            .map { r throws(StoreError) in try APITokenRecord(row: r) }
    }

    public static func delete(_ c: Connection, id: Int64) throws(StoreError) -> Bool {
        try c.execute("DELETE FROM api_tokens WHERE id = ?", [.integer(id)])
        c.changedCredentials = true
        return c.changes > 0
    }

    /// Records use (last_used_at). Callers may want to skip it when the stored
    /// value is recent, to avoid a write per request.
    public static func touch(_ c: Connection, id: Int64, at: Int64) throws(StoreError) {
        try c.execute("UPDATE api_tokens SET last_used_at = ? WHERE id = ?", [.integer(at), .integer(id)])
    }

    /// Makes every token of the user read-only (the user became readonly).
    public static func downgradeToRead(_ c: Connection, userID: Int64) throws(StoreError) {
        try c.execute("UPDATE api_tokens SET scope = 'read' WHERE user_id = ? AND scope <> 'read'",
                      [.integer(userID)])
        c.changedCredentials = true
    }
}
