/// Stable keys (SPEC §13): monitors, channels, maintenance windows,
/// escalation policies and status pages may carry a `key`, unique per kind,
/// by which `PUT …/by-key/{key}` and `pingtxt apply` find them. The column is
/// `stable_key` (KEY is a keyword in both dialects); NULL = no key, and both
/// engines let a UNIQUE index hold any number of NULLs.
enum Schema0023 {
    static let migration = Migration(name: "0023_keys", sql: """
        ALTER TABLE monitors ADD COLUMN stable_key TEXT;
        CREATE UNIQUE INDEX monitors_stable_key ON monitors (stable_key);
        ALTER TABLE channels ADD COLUMN stable_key TEXT;
        CREATE UNIQUE INDEX channels_stable_key ON channels (stable_key);
        ALTER TABLE maintenance_windows ADD COLUMN stable_key TEXT;
        CREATE UNIQUE INDEX maintenance_windows_stable_key ON maintenance_windows (stable_key);
        ALTER TABLE escalation_policies ADD COLUMN stable_key TEXT;
        CREATE UNIQUE INDEX escalation_policies_stable_key ON escalation_policies (stable_key);
        ALTER TABLE status_pages ADD COLUMN stable_key TEXT;
        CREATE UNIQUE INDEX status_pages_stable_key ON status_pages (stable_key);
        """)
}
