/// OAuth 2.1 (SPEC §4): one row per approval ("sign-in", a connected app),
/// the authorization codes, and the access/refresh tokens it issued. Codes
/// and tokens are stored as SHA-256 only. Named 0004 because 0003 belongs to
/// the web sessions; the list in `Migrations.all` keeps them in order.
enum Schema0004 {
    static let migration = Migration(name: "0004_oauth", sql: """
        CREATE TABLE oauth_signins (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            client_id TEXT NOT NULL,
            -- What the user consented to: the refresh token keeps this scope.
            scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
            created_at INTEGER NOT NULL,
            last_used_at INTEGER,
            revoked_at INTEGER
        );
        CREATE INDEX oauth_signins_user_id ON oauth_signins (user_id, id);
        CREATE TABLE oauth_codes (
            id INTEGER PRIMARY KEY,
            code_hash BLOB NOT NULL UNIQUE,
            signin_id INTEGER NOT NULL REFERENCES oauth_signins(id) ON DELETE CASCADE,
            client_id TEXT NOT NULL,
            redirect_uri TEXT NOT NULL,
            code_challenge TEXT NOT NULL,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
            expires_at INTEGER NOT NULL,
            used_at INTEGER
        );
        CREATE INDEX oauth_codes_signin_id ON oauth_codes (signin_id);
        CREATE TABLE oauth_tokens (
            id INTEGER PRIMARY KEY,
            token_hash BLOB NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
            signin_id INTEGER NOT NULL REFERENCES oauth_signins(id) ON DELETE CASCADE,
            scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            -- Refresh tokens: set when exchanged. A second exchange of the
            -- same token is a replay and ends the whole sign-in.
            rotated_at INTEGER,
            code_id INTEGER REFERENCES oauth_codes(id) ON DELETE SET NULL
        );
        CREATE INDEX oauth_tokens_signin_id ON oauth_tokens (signin_id);
        """)
}
