/// A row of `oauth_signins`: one approval of one client by one user.
public struct OAuthSignInRecord: Sendable, Equatable {
    public var id: Int64
    public var userID: Int64
    public var clientID: String
    /// The consented scope, "read" or "write".
    public var scope: String
    public var createdAt: Int64
    public var lastUsedAt: Int64?
    public var revokedAt: Int64?

    init(row r: Row, prefix: String = "") throws(StoreError) {
        id = try r.int(prefix + "id")
        userID = try r.int(prefix + "user_id")
        clientID = try r.text(prefix + "client_id")
        scope = try r.text(prefix + "scope")
        createdAt = try r.int(prefix + "created_at")
        lastUsedAt = try r.optionalInt(prefix + "last_used_at")
        revokedAt = try r.optionalInt(prefix + "revoked_at")
    }
}

/// A row of `oauth_codes`, without the hash.
public struct OAuthCodeRecord: Sendable, Equatable {
    public var id: Int64
    public var signInID: Int64
    public var clientID: String
    public var redirectURI: String
    public var codeChallenge: String
    public var userID: Int64
    public var scope: String
    public var expiresAt: Int64
    public var usedAt: Int64?

    init(row r: Row) throws(StoreError) {
        id = try r.int("id")
        signInID = try r.int("signin_id")
        clientID = try r.text("client_id")
        redirectURI = try r.text("redirect_uri")
        codeChallenge = try r.text("code_challenge")
        userID = try r.int("user_id")
        scope = try r.text("scope")
        expiresAt = try r.int("expires_at")
        usedAt = try r.optionalInt("used_at")
    }
}

/// A row of `oauth_tokens`, without the hash.
public struct OAuthTokenRecord: Sendable, Equatable {
    public enum Kind: String, Sendable { case access, refresh }
    public var id: Int64
    public var kind: Kind
    public var signInID: Int64
    public var scope: String
    public var createdAt: Int64
    public var expiresAt: Int64
    public var rotatedAt: Int64?
    public var codeID: Int64?

    init(row r: Row) throws(StoreError) {
        id = try r.int("id")
        guard let kind = Kind(rawValue: try r.text("kind")) else { throw StoreError.misuse("unknown oauth token kind") }
        self.kind = kind
        signInID = try r.int("signin_id")
        scope = try r.text("scope")
        createdAt = try r.int("created_at")
        expiresAt = try r.int("expires_at")
        rotatedAt = try r.optionalInt("rotated_at")
        codeID = try r.optionalInt("code_id")
    }
}

/// Queries on the OAuth tables. Every call takes the caller's connection so
/// a whole grant (check, consume, issue) is one transaction.
public enum OAuthStore {
    static let signInColumns = "id, user_id, client_id, scope, created_at, last_used_at, revoked_at"
    static let codeColumns = "id, signin_id, client_id, redirect_uri, code_challenge, user_id, scope, expires_at, used_at"
    static let tokenColumns = "id, kind, signin_id, scope, created_at, expires_at, rotated_at, code_id"

    public static func insertSignIn(_ c: Connection, userID: Int64, clientID: String, scope: String,
                                    now: Int64) throws(StoreError) -> OAuthSignInRecord {
        let row = try c.queryOne("""
            INSERT INTO oauth_signins (user_id, client_id, scope, created_at) VALUES (?, ?, ?, ?)
            RETURNING \(signInColumns)
            """, [.integer(userID), .text(clientID), .text(scope), .integer(now)])
        guard let row else { throw StoreError.misuse("INSERT … RETURNING gave no row") }
        return try OAuthSignInRecord(row: row)
    }

    public static func signIn(_ c: Connection, id: Int64) throws(StoreError) -> OAuthSignInRecord? {
        try c.queryOne("SELECT \(signInColumns) FROM oauth_signins WHERE id = ?", [.integer(id)])
            .map { r throws(StoreError) in try OAuthSignInRecord(row: r) }
    }

    /// Live sign-ins with their users, by id; `userID` nil lists everyone's.
    /// A sign-in whose code was never exchanged (the app gave up, or the
    /// code expired) issued nothing and is not a connected app: left out.
    public static func listSignIns(_ c: Connection, userID: Int64?, afterID: Int64?, limit: Int) throws(StoreError)
        -> [(signIn: OAuthSignInRecord, user: UserRecord)] {
        let rows = try c.query("""
            SELECT s.id AS s_id, s.user_id AS s_user_id, s.client_id AS s_client_id, s.scope AS s_scope,
                s.created_at AS s_created_at, s.last_used_at AS s_last_used_at, s.revoked_at AS s_revoked_at,
                u.id, u.email, u.name, u.role, u.password_hash, u.totp_secret, u.totp_enabled, u.created_at, u.updated_at
            FROM oauth_signins s JOIN users u ON u.id = s.user_id
            WHERE s.revoked_at IS NULL AND (CAST(? AS INTEGER) IS NULL OR s.user_id = ?) AND s.id > ?
                AND EXISTS (SELECT 1 FROM oauth_codes c WHERE c.signin_id = s.id AND c.used_at IS NOT NULL)
            ORDER BY s.id LIMIT ?
            """, [SQLValue(userID), SQLValue(userID), .integer(afterID ?? Int64.min), .integer(Int64(max(0, limit)))])
        return try rows.map { r throws(StoreError) in (try OAuthSignInRecord(row: r, prefix: "s_"), try UserRecord(row: r)) }
    }

    /// Ends a sign-in: marks it revoked and deletes every token it issued
    /// (access and refresh) and every phone enrolled on it, so nothing it
    /// handed out works any more.
    /// Returns false if it was already revoked or does not exist.
    @discardableResult
    public static func revokeSignIn(_ c: Connection, id: Int64, now: Int64) throws(StoreError) -> Bool {
        try c.execute("UPDATE oauth_signins SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                      [.integer(now), .integer(id)])
        let changed = c.changes > 0
        try c.execute("DELETE FROM oauth_tokens WHERE signin_id = ?", [.integer(id)])
        c.changedCredentials = true
        // Its phones stop getting notifications at once (SPEC §6).
        try MobileDevices.deleteForSignIn(c, signInID: id)
        return changed
    }

    public static func touchSignIn(_ c: Connection, id: Int64, at: Int64) throws(StoreError) {
        try c.execute("UPDATE oauth_signins SET last_used_at = ? WHERE id = ?", [.integer(at), .integer(id)])
    }

    public static func insertCode(_ c: Connection, hash: [UInt8], signInID: Int64, clientID: String, redirectURI: String,
                                  challenge: String, userID: Int64, scope: String, expiresAt: Int64) throws(StoreError) {
        try c.execute("""
            INSERT INTO oauth_codes (code_hash, signin_id, client_id, redirect_uri, code_challenge, user_id, scope, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.blob(hash), .integer(signInID), .text(clientID), .text(redirectURI), .text(challenge),
                  .integer(userID), .text(scope), .integer(expiresAt)])
    }

    public static func code(_ c: Connection, hash: [UInt8]) throws(StoreError) -> OAuthCodeRecord? {
        try c.queryOne("SELECT \(codeColumns) FROM oauth_codes WHERE code_hash = ?", [.blob(hash)])
            .map { r throws(StoreError) in try OAuthCodeRecord(row: r) }
    }

    /// Compare-and-set: true only for the one caller that consumed the code.
    public static func markCodeUsed(_ c: Connection, id: Int64, now: Int64) throws(StoreError) -> Bool {
        try c.execute("UPDATE oauth_codes SET used_at = ? WHERE id = ? AND used_at IS NULL", [.integer(now), .integer(id)])
        return c.changes > 0
    }

    public static func insertToken(_ c: Connection, hash: [UInt8], kind: OAuthTokenRecord.Kind, signInID: Int64,
                                   scope: String, now: Int64, expiresAt: Int64, codeID: Int64?) throws(StoreError) {
        try c.execute("""
            INSERT INTO oauth_tokens (token_hash, kind, signin_id, scope, created_at, expires_at, code_id)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.blob(hash), .text(kind.rawValue), .integer(signInID), .text(scope), .integer(now),
                  .integer(expiresAt), SQLValue(codeID)])
    }

    public static func token(_ c: Connection, hash: [UInt8]) throws(StoreError) -> OAuthTokenRecord? {
        try c.queryOne("SELECT \(tokenColumns) FROM oauth_tokens WHERE token_hash = ?", [.blob(hash)])
            .map { r throws(StoreError) in try OAuthTokenRecord(row: r) }
    }

    /// Compare-and-set on a refresh token: of two concurrent refreshes with
    /// the same token, only one sees `true`.
    public static func markRotated(_ c: Connection, id: Int64, now: Int64) throws(StoreError) -> Bool {
        try c.execute("UPDATE oauth_tokens SET rotated_at = ? WHERE id = ? AND rotated_at IS NULL",
                      [.integer(now), .integer(id)])
        return c.changes > 0
    }

    /// An access token with its live sign-in and user, in one query (runs on
    /// every request made with a `pma_`). Expiry is the caller's to check.
    public static func accessToken(_ c: Connection, hash: [UInt8]) throws(StoreError)
        -> (token: OAuthTokenRecord, signIn: OAuthSignInRecord, user: UserRecord)? {
        let row = try c.queryOne("""
            SELECT t.id, t.kind, t.signin_id, t.scope, t.created_at, t.expires_at, t.rotated_at, t.code_id,
                s.id AS s_id, s.user_id AS s_user_id, s.client_id AS s_client_id, s.scope AS s_scope,
                s.created_at AS s_created_at, s.last_used_at AS s_last_used_at, s.revoked_at AS s_revoked_at,
                u.id AS u_id, u.email AS u_email, u.name AS u_name, u.role AS u_role,
                u.password_hash AS u_password_hash, u.totp_secret AS u_totp_secret,
                u.totp_enabled AS u_totp_enabled, u.created_at AS u_created_at, u.updated_at AS u_updated_at
            FROM oauth_tokens t JOIN oauth_signins s ON s.id = t.signin_id JOIN users u ON u.id = s.user_id
            WHERE t.token_hash = ? AND t.kind = 'access' AND s.revoked_at IS NULL
            """, [.blob(hash)])
        guard let row else { return nil }
        return (try OAuthTokenRecord(row: row), try OAuthSignInRecord(row: row, prefix: "s_"), try UserRecord(row: row, prefix: "u_"))
    }
}
