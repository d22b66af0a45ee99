/// The SSO columns of `users` (migration 0011), kept apart from `Users` so
/// `UserRecord` and its queries stay as other features use them.
public struct SSOAccountState: Sendable, Equatable {
    public let provider: String?
    public let passwordLogin: Bool
}

public enum SSOAccounts {
    public static func state(_ c: Connection, userID: Int64) throws(StoreError) -> SSOAccountState? {
        guard let row = try c.queryOne("SELECT sso_provider, password_login FROM users WHERE id = ?", [.integer(userID)]) else {
            return nil
        }
        return SSOAccountState(provider: try row.optionalText("sso_provider"), passwordLogin: try row.int("password_login") != 0)
    }

    /// Marks the user as signed in through `provider`.
    public static func link(_ c: Connection, userID: Int64, provider: String, now: Int64) throws(StoreError) {
        try c.execute("UPDATE users SET sso_provider = ?, updated_at = ? WHERE id = ?",
                      [.text(provider), .integer(now), .integer(userID)])
    }

    @discardableResult
    public static func setPasswordLogin(_ c: Connection, userID: Int64, enabled: Bool, now: Int64) throws(StoreError) -> Bool {
        try c.execute("UPDATE users SET password_login = ?, updated_at = ? WHERE id = ?",
                      [.integer(enabled ? 1 : 0), .integer(now), .integer(userID)])
        return c.changes > 0
    }
}
