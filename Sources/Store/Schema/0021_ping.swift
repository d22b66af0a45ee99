/// Ping monitors (SPEC §12).
///
/// - `monitors.type` may be `ping`: the CHECK of 0002 is widened. PostgreSQL
///   replaces the named constraint. SQLite cannot alter a constraint, and
///   rebuilding `monitors` is not an option (with foreign keys on, dropping
///   it would cascade into every result and incident; they cannot be turned
///   off inside the migration's transaction), so the table's stored
///   definition is edited (`StoredDefinition`).
/// - `packet_loss`: the share of echo requests without a reply, 0–1, on
///   each result, on the monitor's last check and on an agent's answer to a
///   check-now relayed between hubs; NULL for other types.
enum Schema0021 {
    static let migration = Migration(name: "0021_ping", sql: """
        ALTER TABLE check_results ADD COLUMN packet_loss REAL;
        ALTER TABLE monitors ADD COLUMN last_packet_loss REAL;
        ALTER TABLE check_requests ADD COLUMN answer_packet_loss REAL;
        """, step: widenTypeCheck)

    static let oldTypes = "CHECK (type IN ('http', 'tcp', 'dns', 'tls', 'heartbeat'))"
    static let newTypes = "CHECK (type IN ('http', 'tcp', 'dns', 'tls', 'heartbeat', 'ping'))"

    @Sendable static func widenTypeCheck(_ c: Connection) throws(StoreError) {
        if c.engine == .postgres {
            try c.executeScript("""
                ALTER TABLE monitors DROP CONSTRAINT monitors_type_check;
                ALTER TABLE monitors ADD CONSTRAINT monitors_type_check \(newTypes);
                """)
            return
        }
        try StoredDefinition.replace(c, [.init(table: "monitors", old: oldTypes, new: newTypes)], migration: "0021_ping")
    }
}
