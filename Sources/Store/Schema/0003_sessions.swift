/// Web sessions of the login page, 2FA recovery codes, and the last TOTP
/// step each user has spent (a code is refused when its step is not newer,
/// so a code seen over a shoulder or in a log cannot be replayed).
enum Schema0003 {
    static let migration = Migration(name: "0003_sessions", sql: """
        CREATE TABLE web_sessions (
            id INTEGER PRIMARY KEY,
            -- SHA-256 of the cookie value: a leaked database gives no usable cookie.
            token_hash BLOB NOT NULL UNIQUE,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            csrf_token TEXT NOT NULL,
            -- password_ok: the password was right and the TOTP code is awaited;
            -- such a session authenticates nothing.
            stage TEXT NOT NULL CHECK (stage IN ('password_ok', 'active')),
            created_at INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            -- Client address and user agent at login, for a future "your sessions" list.
            client TEXT
        );
        CREATE INDEX web_sessions_user_id ON web_sessions (user_id);
        CREATE TABLE recovery_codes (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            code_hash BLOB NOT NULL,
            used_at INTEGER
        );
        CREATE INDEX recovery_codes_user_id ON recovery_codes (user_id);
        ALTER TABLE users ADD COLUMN totp_last_step INTEGER;
        """)
}
