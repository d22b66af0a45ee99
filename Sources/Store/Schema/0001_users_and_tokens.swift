/// Users, their API tokens, and a key/value table for hub-wide facts.
/// Times are Unix seconds. Tokens are stored only as their SHA-256.
enum Schema0001 {
    static let migration = Migration(name: "0001_users_and_tokens", sql: """
        CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            email TEXT NOT NULL UNIQUE COLLATE NOCASE,
            name TEXT NOT NULL DEFAULT '',
            role TEXT NOT NULL CHECK (role IN ('admin', 'readonly')),
            password_hash TEXT,
            totp_secret TEXT,
            totp_enabled INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE api_tokens (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
            token_hash BLOB NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            expires_at INTEGER,
            last_used_at INTEGER
        );
        -- Token listing per user and the ON DELETE CASCADE lookup.
        CREATE INDEX api_tokens_user_id ON api_tokens (user_id, id);
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """)
}
