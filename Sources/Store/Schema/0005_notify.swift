/// Notifications (SPEC §6): the channels and the durable outbox. An outbox
/// row holds the fully built request (`payload`: method, url, headers, body
/// as JSON) so that a retry sends exactly the same bytes. Rows are written in
/// the same transaction as the event they announce; a delivery worker claims
/// due rows with a compare-and-set UPDATE (`pending` → `sending` with
/// `claimed_until`); a row left in `sending` past `claimed_until` (the hub
/// died mid-send) is due again with the same payload.
enum Schema0005 {
    static let migration = Migration(name: "0005_notify", sql: """
        CREATE TABLE channels (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            type TEXT NOT NULL,
            enabled INTEGER NOT NULL DEFAULT 1,
            -- JSON array of event kinds.
            events TEXT NOT NULL DEFAULT '[]',
            -- JSON array of monitor ids; empty = every monitor.
            monitor_ids TEXT NOT NULL DEFAULT '[]',
            reminder_minutes INTEGER NOT NULL DEFAULT 0,
            -- JSON object, per type; secrets in clear (the API masks them).
            config TEXT NOT NULL DEFAULT '{}',
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY,
            channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
            event_id INTEGER REFERENCES events(id) ON DELETE SET NULL,
            kind TEXT NOT NULL CHECK (kind IN ('alert', 'reminder', 'test')),
            payload TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            claimed_until INTEGER,
            last_error TEXT,
            created_at INTEGER NOT NULL,
            sent_at INTEGER
        );
        -- Claiming: due pending rows, and sending rows whose claim expired.
        CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
        CREATE INDEX outbox_channel ON outbox (channel_id, status);
        """)
}
