/// Public status pages (SPEC §7, docs/web.md).
///
/// - `slug` is the page's public URL (`/status/{slug}`), so it is unique.
/// - `monitor_ids` is a JSON array in display order (the order the admin
///   chose), like `maintenance_windows.monitor_ids`. A monitor that is later
///   deleted simply drops out of the page when it is rendered; no foreign key
///   is possible on a JSON array, and a page should survive the deletion.
enum Schema0010 {
    static let migration = Migration(name: "0010_status_pages", sql: """
        CREATE TABLE status_pages (
            id INTEGER PRIMARY KEY,
            slug TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            monitor_ids TEXT NOT NULL DEFAULT '[]',
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        """)
}
