/// Ping monitors (SPEC §12).
///
/// - `monitors.type` may be `ping`: the CHECK of 0002 is widened. PostgreSQL
///   replaces the named constraint. SQLite cannot alter a constraint, and
///   rebuilding `monitors` is not an option (with foreign keys on, dropping
///   it would cascade into every result and incident; they cannot be turned
///   off inside the migration's transaction), so the table's stored
///   definition is edited as SQLite's documentation allows for changes that
///   leave the stored rows valid ("Making Other Kinds Of Table Schema
///   Changes", lang_altertable.html): `writable_schema`, then a new
///   `schema_version` so every connection re-reads the schema.
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
        guard case .integer(let version)? = try c.scalar("PRAGMA schema_version") else {
            throw StoreError.misuse("PRAGMA schema_version gave no number")
        }
        try c.executeScript("PRAGMA writable_schema = ON")
        try c.execute("UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'monitors'",
                      [.text(oldTypes), .text(newTypes)])
        let changed = c.changes
        try c.executeScript("PRAGMA schema_version = \(version + 1); PRAGMA writable_schema = OFF")
        guard changed == 1, case .text(let sql)? = try c.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'monitors'"),
              sql.contains(newTypes) else {
            throw StoreError.misuse("0021_ping: the monitors table does not have the CHECK of 0002")
        }
    }
}
