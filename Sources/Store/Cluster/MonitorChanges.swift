/// The log of monitor changes hubs sharing a database read to stay in step
/// (SPEC §14, migration 0028): one row per create, configuration change,
/// pause, resume or delete, written in the transaction that makes it, with
/// the hub that made it. A hub reads the rows after its `CommitCursor` at
/// each cluster beat, so what it costs follows the changes, not the number
/// of monitors (before, each beat read `updated_at` of every monitor: at
/// 250,000 monitors on PostgreSQL that read, repeated at each wake-up while
/// monitors were being created, slowed creation from 280/s to 67/s).
///
/// The leader prunes rows older than `keepMillis`; a hub that could not read
/// for longer than that reloads every monitor instead (`readableGapMillis`).
public enum MonitorChanges {
    public struct Change: Sendable, Equatable {
        public let seq: Int64
        public let monitorID: Int64
        /// The hub that made the change (it applied it already).
        public let node: String
    }

    public static let keepMillis: Int64 = 3_600_000
    /// A hub whose last read is older than this may have missed pruned rows.
    public static let readableGapMillis: Int64 = keepMillis / 2

    public static func record(_ c: Connection, monitorID: Int64, node: String, at: Int64) throws(StoreError) {
        try c.execute("INSERT INTO monitor_changes (monitor_id, node, at_ms) VALUES (?, ?, ?)",
                      [.integer(monitorID), .text(node), .integer(at)])
    }

    /// The newest change's seq (0 when there is none): where a hub that has
    /// just loaded every monitor starts reading.
    public static func newest(_ c: Connection) throws(StoreError) -> Int64 {
        try c.scalar("SELECT coalesce(max(seq), 0) FROM monitor_changes")?.integerValue ?? 0
    }

    /// Changes after `cursor.after` (at most `limit`, in seq order) and the
    /// awaited ones that are visible now.
    public static func read(_ c: Connection, cursor: CommitCursor, limit: Int) throws(StoreError) -> [Change] {
        var out = try c.query("SELECT seq, monitor_id, node FROM monitor_changes WHERE seq > ? ORDER BY seq LIMIT ?",
                              [.integer(cursor.after), .integer(Int64(limit))]).map(change)
        out += try BulkRows.rows(c, "SELECT seq, monitor_id, node FROM monitor_changes WHERE seq", in: cursor.awaited).map(change)
        return out
    }

    /// Drops rows older than `before` (the leader, at its beat).
    public static func prune(_ c: Connection, before: Int64) throws(StoreError) {
        try c.execute("DELETE FROM monitor_changes WHERE at_ms < ?", [.integer(before)])
    }

    private static func change(_ r: Row) throws(StoreError) -> Change {
        Change(seq: try r.int("seq"), monitorID: try r.int("monitor_id"), node: try r.text("node"))
    }
}
