/// Check-now requests between hubs (SPEC §14: check-now works whichever
/// hub the request reaches). The hub that receives `POST
/// /api/monitors/{id}/check` cannot know on which hub the agent's long
/// poll is parked, so the request is a row here, and a NOTIFY on the wake
/// channel (sent in the same transaction) tells every hub to look. The hub
/// holding the agent's poll claims it (`taken_by`, compare-and-set: handed
/// out once); the hub that receives the agent's answer writes it into the
/// row, and the asking hub reads it from there. A lost notification
/// therefore delays a hand-out or an answer until the next resync (a
/// cluster beat), never loses it.
///
/// Rows live for one check-now (15 s): the asking hub deletes them when it
/// stops waiting, and the next check-now deletes the expired rows of a hub
/// that died while waiting. No foreign keys: a monitor or agent deleted
/// meanwhile just leaves a row nobody can claim or answer.
/// Unused on SQLite (one hub: requests stay in memory).
enum Schema0015 {
    static let migration = Migration(name: "0015_wakeups", sql: """
        CREATE TABLE check_requests (
            id TEXT PRIMARY KEY,
            monitor_id INTEGER NOT NULL,
            agent_id INTEGER NOT NULL,
            asked_by TEXT NOT NULL,
            expires_at INTEGER NOT NULL,
            taken_by TEXT,
            answer_at_ms INTEGER,
            answer_status TEXT,
            answer_latency_ms INTEGER,
            answer_status_code INTEGER,
            answer_error TEXT,
            answer_cert_not_after INTEGER
        );
        CREATE INDEX check_requests_agent ON check_requests (agent_id, expires_at);
        """)
}
