/// Approving a web sign-in on the phone (SPEC §11, docs/security.md).
///
/// One row per approval request. `id` is the random identifier the phone
/// gets in the push and in `GET /api/mobile/login-approvals`; it is stored
/// in clear because it grants nothing by itself: acting on it needs the
/// same user's access token and the number shown in the browser. `code` is
/// that two-digit number (hashing 100 possible values would hide nothing).
///
/// `session_id` is the waiting web session (password right, second factor
/// awaited) that the approval signs in. It becomes NULL when that session
/// ends (signed in with a TOTP code, expired, logged out), so the row stays
/// as an ended approval and a late answer from the phone is `409`, not `404`.
/// `address` is the browser's address, on which a refusal is counted by the
/// rate limiter; `client` is the text the phone shows.
enum Schema0012 {
    static let migration = Migration(name: "0012_login_approvals", sql: """
        CREATE TABLE login_approvals (
            id TEXT PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            session_id INTEGER REFERENCES web_sessions(id) ON DELETE SET NULL,
            code TEXT NOT NULL,
            client TEXT NOT NULL,
            address TEXT NOT NULL,
            -- pending: waiting for the phone; approved: the phone said yes and
            -- the browser has not picked it up yet; used: the browser is signed
            -- in; refused: a wrong number or a no. Expiry is read from expires_at.
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'refused', 'used')),
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            decided_at INTEGER
        );
        CREATE INDEX login_approvals_user ON login_approvals (user_id, created_at);
        CREATE INDEX login_approvals_session ON login_approvals (session_id);
        """)
}
