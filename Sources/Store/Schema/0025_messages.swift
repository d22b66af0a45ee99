/// Messages, and the one-time links of the web admin (SPEC §15,
/// docs/security.md "One-time links").
///
/// - `messages`: one row per `POST /api/messages`, bound to the `events`
///   row (kind `message`) it raised and deleted with it (retention of
///   events). `channel_ids` (JSON) are the channels it was queued for;
///   `url` the sender's link, which the events feed shows.
/// - `sign_in_links`: the web-login link the app opens (`web_login`, 60 s),
///   password recovery (`password_reset`, 30 min) and invitations
///   (`invitation`, 7 days). Only the SHA-256 of the token is stored; the
///   token itself is in the answer or the e-mail that carried it. `used_at`
///   is set by a conditional UPDATE, so a link works once even when two
///   hubs share the database. `can_write` (web login): whether the session
///   it starts may write (the app's sign-in had write scope); `next` where
///   the browser goes (a local path, checked when it was made).
/// - `web_sessions.from_app`: the session was started from the app's
///   web-login link (not by a password): like the app's own token it takes
///   no account endpoints. `read_only`: it came from a read sign-in and can
///   read only, whatever the user's role.
enum Schema0025 {
    static let migration = Migration(name: "0025_messages", sql: """
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
            title TEXT NOT NULL,
            body TEXT NOT NULL,
            priority INTEGER NOT NULL,
            url TEXT,
            monitor_id INTEGER REFERENCES monitors(id) ON DELETE SET NULL,
            channel_ids TEXT NOT NULL,
            created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
            created_at INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX messages_event ON messages (event_id);
        CREATE TABLE sign_in_links (
            id INTEGER PRIMARY KEY,
            token_hash BLOB NOT NULL UNIQUE,
            purpose TEXT NOT NULL CHECK (purpose IN ('web_login', 'password_reset', 'invitation')),
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            can_write INTEGER NOT NULL DEFAULT 0,
            next TEXT,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at INTEGER
        );
        CREATE INDEX sign_in_links_user ON sign_in_links (user_id, purpose);
        CREATE INDEX sign_in_links_expires ON sign_in_links (expires_at);
        ALTER TABLE web_sessions ADD COLUMN from_app INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE web_sessions ADD COLUMN read_only INTEGER NOT NULL DEFAULT 0;
        """)
}
