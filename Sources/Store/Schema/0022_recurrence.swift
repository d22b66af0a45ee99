/// Recurring maintenance windows (SPEC §12).
///
/// - `recurrence_cron`, `recurrence_timezone`, `recurrence_minutes`: the
///   series' cron expression (the heartbeat dialect), IANA zone and
///   occurrence length; all NULL for a one-off window. Plain columns, not
///   JSON: the three always come together and nothing searches them.
/// - `ends_at` becomes nullable: NULL = a series without end (the API only
///   allows that with a recurrence). The 0002 CHECK (ends_at > starts_at)
///   passes on NULL. PostgreSQL drops the NOT NULL; SQLite cannot alter a
///   column, and rebuilding the table is refused for the reason 0021 gives,
///   so the stored definition is edited the same way (a change that leaves
///   every stored row valid), then `schema_version` is bumped.
enum Schema0022 {
    static let migration = Migration(name: "0022_recurrence", sql: """
        ALTER TABLE maintenance_windows ADD COLUMN recurrence_cron TEXT;
        ALTER TABLE maintenance_windows ADD COLUMN recurrence_timezone TEXT;
        ALTER TABLE maintenance_windows ADD COLUMN recurrence_minutes INTEGER;
        """, step: allowOpenEnd)

    static let notNull = "ends_at INTEGER NOT NULL,"
    static let nullable = "ends_at INTEGER,"

    @Sendable static func allowOpenEnd(_ c: Connection) throws(StoreError) {
        if c.engine == .postgres {
            try c.executeScript("ALTER TABLE maintenance_windows ALTER COLUMN ends_at DROP NOT NULL")
            return
        }
        guard case .integer(let version)? = try c.scalar("PRAGMA schema_version") else {
            throw StoreError.misuse("PRAGMA schema_version gave no number")
        }
        try c.executeScript("PRAGMA writable_schema = ON")
        try c.execute("UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'maintenance_windows'",
                      [.text(notNull), .text(nullable)])
        let changed = c.changes
        try c.executeScript("PRAGMA schema_version = \(version + 1); PRAGMA writable_schema = OFF")
        guard changed == 1,
              case .text(let sql)? = try c.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'maintenance_windows'"),
              sql.contains(nullable), !sql.contains(notNull) else {
            throw StoreError.misuse("0022_recurrence: the maintenance_windows table does not have the ends_at of 0002")
        }
    }
}
