/// A row of `web_sessions`, without the token hash (which never leaves the store).
public struct WebSessionRecord: Sendable, Equatable {
    public var id: Int64
    public var userID: Int64
    public var csrfToken: String
    /// "password_ok" (waiting for the TOTP code) or "active".
    public var stage: String
    public var createdAt: Int64
    public var lastSeenAt: Int64
    public var expiresAt: Int64
    public var client: String?
    /// Started from the app's web-login link (SPEC §15): no account endpoints.
    public var fromApp = false
    /// From a read sign-in's link: reads only, whatever the role.
    public var readOnly = false

    public var isActive: Bool { stage == "active" }

    init(row r: Row) throws(StoreError) {
        id = try r.int("id")
        userID = try r.int("user_id")
        csrfToken = try r.text("csrf_token")
        stage = try r.text("stage")
        createdAt = try r.int("created_at")
        lastSeenAt = try r.int("last_seen_at")
        expiresAt = try r.int("expires_at")
        client = try r.optionalText("client")
        fromApp = try r.bool("from_app")
        readOnly = try r.bool("read_only")
    }
}

/// Queries on `web_sessions` (login-page cookies, stored as SHA-256 only).
public enum WebSessions {
    static let columns = "id, user_id, csrf_token, stage, created_at, last_seen_at, expires_at, client, from_app, read_only"

    public static func insert(_ c: Connection, userID: Int64, hash: [UInt8], csrf: String, stage: String,
                              now: Int64, expiresAt: Int64, client: String?, fromApp: Bool = false,
                              readOnly: Bool = false) throws(StoreError) -> WebSessionRecord {
        let row = try c.queryOne("""
            INSERT INTO web_sessions (token_hash, user_id, csrf_token, stage, created_at, last_seen_at, expires_at, client,
                from_app, read_only)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING \(columns)
            """, [.blob(hash), .integer(userID), .text(csrf), .text(stage), .integer(now), .integer(now),
                  .integer(expiresAt), SQLValue(client), SQLValue(fromApp), SQLValue(readOnly)])
        guard let row else { throw StoreError.misuse("INSERT … RETURNING gave no row") }
        return try WebSessionRecord(row: row)
    }

    /// The session with that hash and its user (one JOIN); expiry is the
    /// caller's to check with its clock.
    public static func findByHash(_ c: Connection, hash: [UInt8]) throws(StoreError)
        -> (session: WebSessionRecord, user: UserRecord)? {
        let row = try c.queryOne("""
            SELECT s.id, s.user_id, s.csrf_token, s.stage, s.created_at, s.last_seen_at, s.expires_at, s.client,
                s.from_app, s.read_only,
                u.id AS u_id, u.email AS u_email, u.name AS u_name, u.role AS u_role,
                u.password_hash AS u_password_hash, u.totp_secret AS u_totp_secret,
                u.totp_enabled AS u_totp_enabled, u.created_at AS u_created_at, u.updated_at AS u_updated_at
            FROM web_sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = ?
            """, [.blob(hash)])
        guard let row else { return nil }
        return (try WebSessionRecord(row: row), try UserRecord(row: row, prefix: "u_"))
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> WebSessionRecord? {
        try c.queryOne("SELECT \(columns) FROM web_sessions WHERE id = ?", [.integer(id)])
            .map { r throws(StoreError) in try WebSessionRecord(row: r) }
    }

    public static func touch(_ c: Connection, id: Int64, at: Int64) throws(StoreError) {
        try c.execute("UPDATE web_sessions SET last_seen_at = ? WHERE id = ?", [.integer(at), .integer(id)])
    }

    public static func delete(_ c: Connection, id: Int64) throws(StoreError) -> Bool {
        try c.execute("DELETE FROM web_sessions WHERE id = ?", [.integer(id)])
        return c.changes > 0
    }

    /// Every session of the user, except `keeping` (the one that asked).
    @discardableResult
    public static func deleteAll(_ c: Connection, userID: Int64, keeping: Int64? = nil) throws(StoreError) -> Int {
        try c.execute("DELETE FROM web_sessions WHERE user_id = ? AND id <> ?",
                      [.integer(userID), .integer(keeping ?? 0)])
        return c.changes
    }

    /// Removes sessions past their absolute expiry or idle for longer than `idleBefore`.
    @discardableResult
    public static func deleteExpired(_ c: Connection, now: Int64, idleBefore: Int64) throws(StoreError) -> Int {
        try c.execute("DELETE FROM web_sessions WHERE expires_at <= ? OR last_seen_at < ?",
                      [.integer(now), .integer(idleBefore)])
        return c.changes
    }
}
