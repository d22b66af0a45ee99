/// Monitors, their check results and roll-ups, incidents with timelines,
/// maintenance windows, heartbeat pings, and the domain events the alerting
/// side consumes. Times are Unix seconds except `*_ms` columns.
enum Schema0002 {
    static let migration = Migration(name: "0002_monitoring", sql: """
        CREATE TABLE monitors (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('http', 'tcp', 'dns', 'tls', 'heartbeat')),
            target TEXT,
            interval INTEGER NOT NULL,
            timeout INTEGER NOT NULL,
            retries INTEGER NOT NULL,
            paused INTEGER NOT NULL DEFAULT 0,
            locations TEXT NOT NULL DEFAULT '[]',
            confirm_locations INTEGER NOT NULL DEFAULT 1,
            degraded_after_ms INTEGER,
            cert_expiry_days INTEGER,
            -- Type-specific settings as JSON ({"http": {...}} / {"dns": {...}} / {"heartbeat": {...}}).
            settings TEXT NOT NULL DEFAULT '{}',
            ping_key TEXT UNIQUE,
            status TEXT NOT NULL DEFAULT 'pending',
            status_since INTEGER NOT NULL,
            -- The state machine's per-location counters and open incident kinds, as JSON.
            state TEXT NOT NULL DEFAULT '{}',
            -- When the scheduler runs it next, so a restart resumes without a burst.
            next_due_ms INTEGER,
            last_at INTEGER,
            last_location TEXT,
            last_status TEXT,
            last_latency_ms INTEGER,
            last_status_code INTEGER,
            last_error TEXT,
            cert_not_after INTEGER,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX monitors_status ON monitors (status, id);

        -- Raw results, kept for retention.raw_days; older ones live on in the roll-ups.
        CREATE TABLE check_results (
            id INTEGER PRIMARY KEY,
            monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
            at_ms INTEGER NOT NULL,
            location TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('up', 'degraded', 'down')),
            latency_ms INTEGER,
            status_code INTEGER,
            error TEXT,
            in_maintenance INTEGER NOT NULL DEFAULT 0
        );
        -- The only index: every query (history, uptime, roll-ups, pruning) is
        -- per monitor. A second index on at_ms alone would add a quarter to the
        -- size of the largest table (measured: 70 vs 53 bytes a row).
        CREATE INDEX check_results_monitor_at ON check_results (monitor_id, at_ms);

        -- Hourly and daily aggregates: counts, latency sum and histogram.
        CREATE TABLE result_rollups (
            monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
            resolution INTEGER NOT NULL,      -- 3600 or 86400
            bucket_start INTEGER NOT NULL,
            up INTEGER NOT NULL,
            degraded INTEGER NOT NULL,
            down INTEGER NOT NULL,
            in_maintenance INTEGER NOT NULL,
            latency_sum INTEGER NOT NULL,
            latency_count INTEGER NOT NULL,
            histogram TEXT NOT NULL,
            PRIMARY KEY (monitor_id, resolution, bucket_start)
        ) WITHOUT ROWID;

        CREATE TABLE incidents (
            id INTEGER PRIMARY KEY,
            monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('down', 'degraded', 'expiry')),
            status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
            cause TEXT NOT NULL,
            locations TEXT NOT NULL DEFAULT '[]',
            opened_at INTEGER NOT NULL,
            closed_at INTEGER,
            acknowledged_at INTEGER,
            acknowledged_by TEXT,
            acknowledged_by_user_id INTEGER
        );
        CREATE INDEX incidents_monitor ON incidents (monitor_id, status);
        CREATE INDEX incidents_status ON incidents (status, id);
        -- At most one open incident of a kind per monitor.
        CREATE UNIQUE INDEX incidents_one_open ON incidents (monitor_id, kind) WHERE status = 'open';

        CREATE TABLE incident_timeline (
            id INTEGER PRIMARY KEY,
            incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
            at INTEGER NOT NULL,
            event TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX incident_timeline_incident ON incident_timeline (incident_id, id);

        CREATE TABLE maintenance_windows (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            monitor_ids TEXT NOT NULL DEFAULT '[]',
            starts_at INTEGER NOT NULL,
            ends_at INTEGER NOT NULL,
            created_by TEXT,
            created_at INTEGER NOT NULL,
            CHECK (ends_at > starts_at)
        );
        CREATE INDEX maintenance_windows_ends ON maintenance_windows (ends_at);

        CREATE TABLE heartbeat_pings (
            id INTEGER PRIMARY KEY,
            monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
            at_ms INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('success', 'start', 'fail')),
            exit_code INTEGER,
            body BLOB,
            client TEXT
        );
        CREATE INDEX heartbeat_pings_monitor ON heartbeat_pings (monitor_id, id);
        CREATE TABLE heartbeat_state (
            monitor_id INTEGER PRIMARY KEY REFERENCES monitors(id) ON DELETE CASCADE,
            last_success INTEGER,
            last_start INTEGER,
            last_failure INTEGER,
            last_exit_code INTEGER
        );

        -- Domain events (monitor_down, …), written in the same transaction as
        -- the state change; the alerting side consumes them in id order.
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            monitor_id INTEGER REFERENCES monitors(id) ON DELETE SET NULL,
            incident_id INTEGER REFERENCES incidents(id) ON DELETE SET NULL,
            at INTEGER NOT NULL,
            cause TEXT NOT NULL DEFAULT '',
            locations TEXT NOT NULL DEFAULT '[]',
            suppressed INTEGER NOT NULL DEFAULT 0,
            processed_at INTEGER
        );
        CREATE INDEX events_unprocessed ON events (processed_at, id);
        """)
}
