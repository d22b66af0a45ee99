/// What a one-time link does (`sign_in_links.purpose`, SPEC §15).
public enum SignInLinkPurpose: String, Sendable {
    /// The app's way into the web admin: signs a browser in (60 s).
    case webLogin = "web_login"
    /// Password recovery: sets a new password (30 min).
    case passwordReset = "password_reset"
    /// An invitation: sets the first password (7 days).
    case invitation
}

/// A link that was just used up (`SignInLinks.consume`).
public struct ConsumedSignInLink: Sendable, Equatable {
    public var userID: Int64
    public var canWrite: Bool
    public var next: String?
}

/// Queries on `sign_in_links`. Links are found by the hash of their token
/// only; using one is a single conditional UPDATE, so it works once even
/// when two hubs (or two clicks) race for it.
public enum SignInLinks {
    public static func insert(_ c: Connection, tokenHash: [UInt8], purpose: SignInLinkPurpose, userID: Int64, canWrite: Bool = false,
                              next: String? = nil, now: Int64, expiresAt: Int64) throws(StoreError) {
        try c.execute("""
            INSERT INTO sign_in_links (token_hash, purpose, user_id, can_write, next, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.blob(tokenHash), .text(purpose.rawValue), .integer(userID), SQLValue(canWrite), SQLValue(next), .integer(now),
                  .integer(expiresAt)])
    }

    /// Uses the link up if it is of `purpose`, unused and not expired at
    /// `now`; nil otherwise (unknown, used, late: the caller cannot tell
    /// which, nor needs to).
    public static func consume(_ c: Connection, tokenHash: [UInt8], purpose: SignInLinkPurpose,
                               now: Int64) throws(StoreError) -> ConsumedSignInLink? {
        guard let r = try c.queryOne("""
            UPDATE sign_in_links SET used_at = ?
            WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
            RETURNING user_id, can_write, next
            """, [.integer(now), .blob(tokenHash), .text(purpose.rawValue), .integer(now)]) else { return nil }
        return ConsumedSignInLink(userID: try r.int("user_id"), canWrite: try r.bool("can_write"), next: try r.optionalText("next"))
    }

    /// Whether the link is usable now (the reset page's GET shows the form
    /// only then; it is used up by the POST that sets the password).
    public static func isUsable(_ c: Connection, tokenHash: [UInt8], purpose: SignInLinkPurpose,
                                now: Int64) throws(StoreError) -> Bool {
        try c.queryOne("""
            SELECT id FROM sign_in_links WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
            """, [.blob(tokenHash), .text(purpose.rawValue), .integer(now)]) != nil
    }

    /// Users with an unused, unexpired invitation (`"invited": true`).
    public static func invitedUserIDs(_ c: Connection, now: Int64) throws(StoreError) -> Set<Int64> {
        Set(try c.query("""
            SELECT DISTINCT user_id FROM sign_in_links WHERE purpose = 'invitation' AND used_at IS NULL AND expires_at > ?
            """, [.integer(now)]).map { r throws(StoreError) in try r.int("user_id") })
    }

    /// Ends the user's other unused links of `purpose` (a new recovery mail
    /// makes the older ones worthless; a set password ends invitations).
    public static func revoke(_ c: Connection, userID: Int64, purpose: SignInLinkPurpose, now: Int64) throws(StoreError) {
        try c.execute("UPDATE sign_in_links SET used_at = ? WHERE user_id = ? AND purpose = ? AND used_at IS NULL",
                      [.integer(now), .integer(userID), .text(purpose.rawValue)])
    }

    /// Deletes links expired before `before` (retention).
    @discardableResult
    public static func deleteExpired(_ c: Connection, before: Int64) throws(StoreError) -> Int {
        try c.execute("DELETE FROM sign_in_links WHERE expires_at < ?", [.integer(before)])
        return c.changes
    }
}
