/// Remote check agents (SPEC §8, docs/agents.md).
///
/// - `agents`: one row per remote location. The name is the location name
///   results are stored under, so it is unique; the `pmg_` token is kept as
///   its SHA-256 only. `status` is `pending` until the agent first calls,
///   then `online`/`offline`; `status_since` is when it last changed (the
///   `agent_online` notification says how long it was away).
/// - Result de-duplication (same monitor, location and `at_ms`) needs no new
///   index: `check_results_monitor_at (monitor_id, at_ms)` finds the few rows
///   of that millisecond, and a UNIQUE index cannot be used because two hub
///   checks may share a stored millisecond (check-now in the same second as
///   a scheduled check).
enum Schema0007 {
    static let migration = Migration(name: "0007_agents", sql: """
        CREATE TABLE agents (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            token_hash BLOB NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            last_seen_at INTEGER,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'online', 'offline')),
            status_since INTEGER NOT NULL,
            version TEXT,
            address TEXT
        );
        """)
}
