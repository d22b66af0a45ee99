/// The monitor change log hubs sharing a database read at each beat
/// (`MonitorChanges`). `seq` is an identity on PostgreSQL (ids are never
/// reused, AUTOINCREMENT on SQLite for the same promise), `at_ms` is what
/// the leader prunes by. No foreign key to `monitors`: a delete is a change
/// too, and its row outlives the monitor.
enum Schema0028 {
    static let migration = Migration(name: "0028_monitor_changes", sql: """
        CREATE TABLE monitor_changes (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            monitor_id INTEGER NOT NULL,
            node TEXT NOT NULL,
            at_ms INTEGER NOT NULL
        );
        CREATE INDEX monitor_changes_at ON monitor_changes (at_ms);
        """)
}
