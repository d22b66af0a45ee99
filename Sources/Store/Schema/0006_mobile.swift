/// Phones, the push relay and reminders (SPEC §6).
///
/// - `outbox` is rebuilt: `channel_id` may be NULL (Live Activity messages
///   belong to a phone, not to a channel), `transport` says who delivers a
///   row (`http` request, `smtp` message, `push` relay message), `device_id`
///   names the phone a push row is for, and the kind `liveactivity` exists.
/// - `mobile_devices`: one row per phone and sign-in (SPEC §6 "devices bound
///   to the OAuth sign-in"); the push token is unique, so a phone that signs
///   in again moves to its new sign-in instead of being notified twice. The
///   Live Activity state lives on the same row: the push-to-start token, the
///   running activity's id and update token, whether a start was sent that
///   the phone has not yet answered with an update token, and the last
///   `aps.timestamp` sent (it must never go backwards).
/// - `channel_reminders`: when a channel next repeats an open incident.
enum Schema0006 {
    static let migration = Migration(name: "0006_mobile", sql: """
        CREATE TABLE outbox_new (
            id INTEGER PRIMARY KEY,
            channel_id INTEGER REFERENCES channels(id) ON DELETE CASCADE,
            event_id INTEGER REFERENCES events(id) ON DELETE SET NULL,
            kind TEXT NOT NULL CHECK (kind IN ('alert', 'reminder', 'test', 'liveactivity')),
            transport TEXT NOT NULL DEFAULT 'http' CHECK (transport IN ('http', 'smtp', 'push')),
            device_id INTEGER,
            payload TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            claimed_until INTEGER,
            last_error TEXT,
            created_at INTEGER NOT NULL,
            sent_at INTEGER
        );
        INSERT INTO outbox_new (id, channel_id, event_id, kind, transport, payload, status, attempts, next_attempt_at,
                                claimed_until, last_error, created_at, sent_at)
            SELECT id, channel_id, event_id, kind, 'http', payload, status, attempts, next_attempt_at,
                   claimed_until, last_error, created_at, sent_at FROM outbox;
        DROP TABLE outbox;
        ALTER TABLE outbox_new RENAME TO outbox;
        CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
        CREATE INDEX outbox_channel ON outbox (channel_id, status);
        CREATE INDEX outbox_device ON outbox (device_id, status) WHERE device_id IS NOT NULL;
        -- Pruning old delivered rows.
        CREATE INDEX outbox_created ON outbox (created_at);

        CREATE TABLE mobile_devices (
            id INTEGER PRIMARY KEY,
            signin_id INTEGER NOT NULL REFERENCES oauth_signins(id) ON DELETE CASCADE,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            platform TEXT NOT NULL CHECK (platform IN ('ios', 'android')),
            token TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL DEFAULT '',
            app_version TEXT NOT NULL DEFAULT '',
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            la_start_token TEXT,
            la_activity_id TEXT,
            la_token TEXT,
            -- 1 while a start was sent and the phone has not reported its activity.
            la_starting INTEGER NOT NULL DEFAULT 0,
            la_timestamp INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX mobile_devices_signin ON mobile_devices (signin_id);
        CREATE INDEX mobile_devices_user ON mobile_devices (user_id);

        CREATE TABLE channel_reminders (
            channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
            incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
            next_at INTEGER NOT NULL,
            sent INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (channel_id, incident_id)
        ) WITHOUT ROWID;
        CREATE INDEX channel_reminders_due ON channel_reminders (next_at);
        """)
}
