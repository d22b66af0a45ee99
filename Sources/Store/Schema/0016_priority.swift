/// Alerts that must not be missed (SPEC §10): priorities, quiet hours and
/// the events feed.
///
/// - `monitors.priority`: the monitor's own 0–10 priority; NULL = the
///   defaults per event (Notify's `AlertPriority` reads it).
/// - `channels.min_priority`: notifications below it are not sent there.
/// - `events.priority`, `title`, `body`: what the alert said when the event
///   was raised (the notifier writes them in the event's own transaction),
///   so `GET /api/events` shows the history as it was even after a monitor
///   is renamed or its priority changes. NULL on rows from before this
///   migration: the feed then falls back to the defaults.
/// - `events_at`: the retention job deletes events by age;
///   `events_incident`: a reminder names the event it repeats (`event_id`).
/// - `quiet_hours`: one row per user who saved theirs; no row = the
///   defaults of §10 (off, 22:00–07:00 UTC, below 8).
enum Schema0016 {
    static let migration = Migration(name: "0016_priority", sql: """
        ALTER TABLE monitors ADD COLUMN priority INTEGER;
        ALTER TABLE channels ADD COLUMN min_priority INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE events ADD COLUMN priority INTEGER;
        ALTER TABLE events ADD COLUMN title TEXT;
        ALTER TABLE events ADD COLUMN body TEXT;
        CREATE INDEX events_at ON events (at);
        CREATE INDEX events_incident ON events (incident_id, id);
        CREATE TABLE quiet_hours (
            user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            enabled INTEGER NOT NULL DEFAULT 0,
            -- Local wall-clock times as the API writes them ("22:00").
            start_time TEXT NOT NULL,
            end_time TEXT NOT NULL,
            timezone TEXT NOT NULL,
            min_priority INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        """)
}
