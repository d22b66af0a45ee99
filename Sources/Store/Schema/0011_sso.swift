/// Single sign-on (SPEC §9, docs/sso.md).
///
/// - `users.sso_provider`: the `[[sso.providers]]` id that created or last
///   linked the user (NULL for password-only users). Informational for
///   admins, and the marker that lets them switch password sign-in off.
/// - `users.password_login`: 0 = the login form refuses this user's password
///   (the account is then reachable through its provider only).
///
/// Pending sign-ins (state, nonce, PKCE verifier) are not stored: they live
/// ten minutes in memory, and a restart in between only means clicking the
/// button again.
enum Schema0011 {
    static let migration = Migration(name: "0011_sso", sql: """
        ALTER TABLE users ADD COLUMN sso_provider TEXT;
        ALTER TABLE users ADD COLUMN password_login INTEGER NOT NULL DEFAULT 1;
        """)
}
