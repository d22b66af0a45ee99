/// Tags (SPEC §12).
///
/// - `monitors.tags`: the monitor's tags as JSON text, what the API shows
///   (read with the row, like `locations`, so listing needs no join).
/// - `monitor_tags`: the same tags one row each, written in the same
///   transaction as the column: the index that `?tag=` and the tag lookups
///   of bulk actions, maintenance windows and status pages use, so they
///   never scan JSON at 100k+ monitors. Primary key (tag, monitor_id) is
///   the index on tag.
/// - `maintenance_windows.tags`, `status_pages.tags`: tags the window or
///   page covers besides its `monitor_ids`, resolved when read, so a
///   monitor tagged later is covered too.
enum Schema0019 {
    static let migration = Migration(name: "0019_tags", sql: """
        ALTER TABLE monitors ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
        CREATE TABLE monitor_tags (
            tag TEXT NOT NULL,
            monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
            PRIMARY KEY (tag, monitor_id)
        );
        CREATE INDEX monitor_tags_monitor ON monitor_tags (monitor_id);
        ALTER TABLE maintenance_windows ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
        ALTER TABLE status_pages ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
        """)
}
