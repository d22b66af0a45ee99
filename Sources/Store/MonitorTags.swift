/// Queries on `monitor_tags`, the index of `monitors.tags` (SPEC §12).
/// `Monitors.insert` and `updateConfig` keep it equal to the column, in the
/// caller's transaction; a deleted monitor's rows go with it (ON DELETE
/// CASCADE).
public enum MonitorTags {
    /// Makes the monitor's rows exactly `tags` (already lowercase, unique).
    /// Deferred (PostgreSQL: sent with the next statement that needs an
    /// answer): a bulk create writes a thousand monitors' tags in one
    /// transaction, and each statement waiting for its own round trip held
    /// the writer, and the check results queued behind it, that much longer.
    static func replace(_ c: Connection, monitorID: Int64, tags: [String], isNew: Bool = false) throws(StoreError) {
        if !isNew { try c.executeDeferred("DELETE FROM monitor_tags WHERE monitor_id = ?", [.integer(monitorID)]) }
        for tag in tags {
            try c.executeDeferred("INSERT INTO monitor_tags (tag, monitor_id) VALUES (?, ?)", [.text(tag), .integer(monitorID)])
        }
    }

    /// The ids of the monitors having any of `tags`, ascending. Each tag is
    /// one range of the primary key, so this reads only the matching rows.
    public static func monitorIDs(_ c: Connection, anyOf tags: [String]) throws(StoreError) -> [Int64] {
        var out = Set<Int64>()
        for tag in Set(tags) {
            for r in try c.query("SELECT monitor_id FROM monitor_tags WHERE tag = ?", [.text(tag)]) {
                out.insert(try r.int("monitor_id"))
            }
        }
        return out.sorted()
    }

    /// Every tag in use with how many monitors have it, by tag (the
    /// dashboard's filter links).
    public static func counts(_ c: Connection) throws(StoreError) -> [(tag: String, monitors: Int)] {
        try c.query("SELECT tag, count(*) AS n FROM monitor_tags GROUP BY tag ORDER BY tag").map { r throws(StoreError) in
            (tag: try r.text("tag"), monitors: Int(try r.int("n")))
        }
    }
}
