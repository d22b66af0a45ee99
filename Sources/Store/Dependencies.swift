/// Queries on `monitor_dependencies` and the hold columns of `incidents`
/// (SPEC §12; the decision itself is Monitoring's `DependencyGate`).
public enum Dependencies {
    enum SQL {
        static let parents = "SELECT parent_id FROM monitor_dependencies WHERE monitor_id = ? ORDER BY parent_id"
        static let all = "SELECT monitor_id, parent_id FROM monitor_dependencies ORDER BY monitor_id, parent_id"
        static let clear = "DELETE FROM monitor_dependencies WHERE monitor_id = ?"
        static let insert = "INSERT INTO monitor_dependencies (monitor_id, parent_id) VALUES (?, ?)"
        static let flagParents = """
            UPDATE monitors SET has_parents = CASE WHEN EXISTS (SELECT 1 FROM monitor_dependencies WHERE monitor_id = monitors.id)
            THEN 1 ELSE 0 END WHERE id = ?
            """
        static let flagChildren = """
            UPDATE monitors SET has_children = CASE WHEN EXISTS (SELECT 1 FROM monitor_dependencies WHERE parent_id = monitors.id)
            THEN 1 ELSE 0 END WHERE id = ?
            """
        static let hold = "UPDATE incidents SET held_since = ?, held_until = ? WHERE id = ? AND status = 'open'"
        /// Only one transaction ends a given hold: the one whose UPDATE still
        /// finds it (on PostgreSQL a second waits for the first's row lock,
        /// then sees `held_until` NULL and changes nothing).
        static let claim = """
            UPDATE incidents SET held_since = NULL, held_until = NULL, suppressed_by = ?
            WHERE id = ? AND status = 'open' AND held_until IS NOT NULL
            """
        static let due = """
            SELECT * FROM incidents WHERE held_until IS NOT NULL AND held_until <= ? AND status = 'open' ORDER BY id LIMIT ?
            """
        /// Open `down` incidents of the parent's children that wait for it
        /// or were suppressed by it.
        static let childIncidents = """
            SELECT i.* FROM incidents i JOIN monitor_dependencies d ON d.monitor_id = i.monitor_id
            WHERE d.parent_id = ? AND i.status = 'open' AND i.kind = 'down'
              AND (i.held_until IS NOT NULL OR i.suppressed_by = ?)
            ORDER BY i.id
            """
    }

    public static func parents(_ c: Connection, monitorID: Int64) throws(StoreError) -> [Int64] {
        try c.query(SQL.parents, [.integer(monitorID)]).map { r throws(StoreError) in try r.int("parent_id") }
    }

    /// Every edge (child, parent): the cycle check walks the whole graph.
    public static func all(_ c: Connection) throws(StoreError) -> [(child: Int64, parent: Int64)] {
        try c.query(SQL.all).map { r throws(StoreError) in (try r.int("monitor_id"), try r.int("parent_id")) }
    }

    /// Serialises the transactions that add edges, so each one's cycle check
    /// sees the others' committed edges: on PostgreSQL two edits (a→b, b→a)
    /// checked at once against the same old graph would both pass. The lock
    /// conflicts with itself and with every write of the table, and is held
    /// to COMMIT; statements after it in READ COMMITTED see what committed
    /// before it was granted. SQLite has one writer: nothing to do.
    public static func lockGraph(_ c: Connection) throws(StoreError) {
        guard c.engine == .postgres else { return }
        try c.execute("LOCK TABLE monitor_dependencies IN SHARE ROW EXCLUSIVE MODE")
    }

    /// Replaces the monitor's parents and keeps the `has_parents` /
    /// `has_children` flags of everyone involved true to the edges.
    public static func replace(_ c: Connection, monitorID: Int64, parents: [Int64]) throws(StoreError) {
        let old = try self.parents(c, monitorID: monitorID)
        try c.execute(SQL.clear, [.integer(monitorID)])
        for p in parents { try c.execute(SQL.insert, [.integer(monitorID), .integer(p)]) }
        try c.execute(SQL.flagParents, [.integer(monitorID)])
        for id in Set(old).union(parents).sorted() { try c.execute(SQL.flagChildren, [.integer(id)]) }
    }

    /// Holds the incident's alert from `since` until `until` at the latest.
    public static func hold(_ c: Connection, incidentID: Int64, since: Int64, until: Int64) throws(StoreError) {
        try c.execute(SQL.hold, [.integer(since), .integer(until), .integer(incidentID)])
    }

    /// Ends the hold, marking the incident suppressed by `suppressedBy` (nil =
    /// not suppressed: its alert goes out). False when another transaction
    /// ended it first or the incident closed.
    public static func claim(_ c: Connection, incidentID: Int64, suppressedBy: Int64?) throws(StoreError) -> Bool {
        try c.execute(SQL.claim, [SQLValue(suppressedBy), .integer(incidentID)])
        return c.changes > 0
    }

    /// Open incidents whose hold has run out by `now`.
    public static func due(_ c: Connection, now: Int64, limit: Int = 100) throws(StoreError) -> [IncidentRecord] {
        try c.query(SQL.due, [.integer(now), .integer(Int64(limit))]).map { r throws(StoreError) in try IncidentRecord(row: r) }
    }

    public static func childIncidents(_ c: Connection, parentID: Int64) throws(StoreError) -> [IncidentRecord] {
        try c.query(SQL.childIncidents, [.integer(parentID), .integer(parentID)])
            .map { r throws(StoreError) in try IncidentRecord(row: r) }
    }
}
