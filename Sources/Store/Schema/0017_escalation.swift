/// Escalation policies (SPEC §10 "Escalation policies").
///
/// - `escalation_policies`: a named chain of steps. The steps are one JSON
///   column (`[{"channel_ids": [3], "delay_minutes": 10}, …]`): a policy is
///   read and written whole, never queried by step, and at most 10 steps of
///   at most 20 channels each fit comfortably in one row.
/// - `monitors.escalation_policy_id`: the policy a monitor's `down`
///   incidents follow (NULL: none). The foreign key backs the API's `409`
///   for deleting a policy in use.
/// - `incident_escalations`: one row per incident that escalates, the state
///   a restart must not lose: the round (0 = the first pass through the
///   chain, then one per repeat), the last step sent in it (1-based, 0 =
///   none yet), when the next one is due (`next_at`, NULL once the chain
///   has run out or stopped), the channels alerted so far (`monitor_up`
///   goes to each of them) and a `version` that every advance increments.
///   A step's outbox rows and the advance are written in one transaction
///   whose UPDATE is conditional on `version` (and, on PostgreSQL, on a
///   row lock taken with SKIP LOCKED), so each step is sent by one hub,
///   once. The partial index keeps "what is due" a short index scan with
///   any number of finished rows.
///
/// `policy_id` has no foreign key: a monitor may switch to another policy
/// while an incident escalates and the old one may then be deleted; the
/// chain then stops (the engine finds no policy), it does not block the
/// delete. `incident_id` is the key as a table constraint, not `INTEGER PRIMARY
/// KEY`: it is the incident's id, not an identity of its own.
enum Schema0017 {
    static let migration = Migration(name: "0017_escalation", sql: """
        CREATE TABLE escalation_policies (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            repeat_count INTEGER NOT NULL DEFAULT 0,
            steps TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        ALTER TABLE monitors ADD COLUMN escalation_policy_id INTEGER REFERENCES escalation_policies(id);
        CREATE INDEX monitors_escalation_policy ON monitors (escalation_policy_id) WHERE escalation_policy_id IS NOT NULL;

        CREATE TABLE incident_escalations (
            incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
            policy_id INTEGER NOT NULL,
            event_id INTEGER REFERENCES events(id) ON DELETE SET NULL,
            round INTEGER NOT NULL DEFAULT 0,
            step INTEGER NOT NULL DEFAULT 0,
            next_at INTEGER,
            alerted TEXT NOT NULL DEFAULT '[]',
            version INTEGER NOT NULL DEFAULT 0,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (incident_id)
        );
        CREATE INDEX incident_escalations_due ON incident_escalations (next_at) WHERE next_at IS NOT NULL;
        """)
}
