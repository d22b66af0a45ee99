/// Several hubs on one PostgreSQL database (SPEC §14, docs/postgres.md).
///
/// - `hub_nodes`: one row per running hub, `seen_at` renewed every few
///   seconds. A hub whose row is older than the liveness window is dead: the
///   others take over its monitors and release its outbox claims.
/// - `leases`: work that one hub does for all (retention, reminders, agent
///   liveness) is done by the holder of a named lease, a row with an expiry
///   that the holder renews; a dead holder's lease simply runs out. No
///   advisory lock is held across a job, so no server setting can release
///   it half-way through.
/// - `outbox.claimed_by`: which hub is sending a row, so a dead hub's claims
///   are released as soon as it is known dead instead of when they expire.
///
/// On SQLite (one hub per file, held by a file lock) the tables stay empty.
enum Schema0014 {
    static let migration = Migration(name: "0014_cluster", sql: """
        CREATE TABLE hub_nodes (
            id TEXT PRIMARY KEY,
            started_at INTEGER NOT NULL,
            seen_at INTEGER NOT NULL,
            version TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            expires_at INTEGER NOT NULL
        );
        ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
        """)
}
