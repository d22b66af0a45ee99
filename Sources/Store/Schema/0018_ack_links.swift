/// Acknowledge links (SPEC §10, "Acknowledge from the alert itself"): one
/// row per link sent, bound to one incident and the channel it went to.
///
/// - `token_hash`: SHA-256 of the random token in the link; the token itself
///   is only in the message that carried it (and its outbox row).
/// - `expires_at`: at most 7 days after it was sent; the link also stops
///   working when the incident closes or once it was used (`used_at`).
/// - `channel_name`: kept as it was when sent, for `acknowledged_by`
///   ("link: Ops e-mail") even if the channel is renamed or deleted.
enum Schema0018 {
    static let migration = Migration(name: "0018_ack_links", sql: """
        CREATE TABLE ack_links (
            id INTEGER PRIMARY KEY,
            token_hash BLOB NOT NULL UNIQUE,
            incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
            channel_id INTEGER REFERENCES channels(id) ON DELETE SET NULL,
            channel_name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at INTEGER
        );
        CREATE INDEX ack_links_incident ON ack_links (incident_id);
        CREATE INDEX ack_links_expires ON ack_links (expires_at);
        """)
}
