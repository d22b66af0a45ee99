/// A row of `incidents`.
public struct IncidentRecord: Sendable, Equatable {
    public var id: Int64
    public var monitorID: Int64
    public var kind: String
    public var status: String
    public var cause: String
    /// Location names (JSON text in the table).
    public var locations: [String]
    public var openedAt: Int64
    public var closedAt: Int64?
    public var acknowledgedAt: Int64?
    public var acknowledgedBy: String?
    /// Dependencies (SPEC §12): a `monitor_down` held since this time, until
    /// `heldUntil` at the latest; nil = not held.
    public var heldSince: Int64?
    public var heldUntil: Int64?
    /// The parent that was down when the hold ended: no alerts for it.
    public var suppressedBy: Int64?

    init(row r: Row) throws(StoreError) {
        id = try r.int("id")
        monitorID = try r.int("monitor_id")
        kind = try r.text("kind")
        status = try r.text("status")
        cause = try r.text("cause")
        locations = try r.stringArray("locations", table: "incidents")
        openedAt = try r.int("opened_at")
        closedAt = try r.optionalInt("closed_at")
        acknowledgedAt = try r.optionalInt("acknowledged_at")
        acknowledgedBy = try r.optionalText("acknowledged_by")
        heldSince = try r.optionalInt("held_since")
        heldUntil = try r.optionalInt("held_until")
        suppressedBy = try r.optionalInt("suppressed_by")
    }
}

public struct TimelineEntry: Sendable, Equatable {
    public var at: Int64
    public var event: String
    public var detail: String
}

/// Queries on `incidents` and `incident_timeline`.
public enum Incidents {
    enum SQL {
        static let open = """
            INSERT INTO incidents (monitor_id, kind, status, cause, locations, opened_at)
            VALUES (?, ?, 'open', ?, ?, ?) RETURNING *
            """
        static let findOpen = "SELECT * FROM incidents WHERE monitor_id = ? AND kind = ? AND status = 'open'"
        static let openFor = "SELECT * FROM incidents WHERE monitor_id = ? AND status = 'open' ORDER BY id"
        static let close = """
            UPDATE incidents SET status = 'closed', closed_at = ? WHERE monitor_id = ? AND kind = ? AND status = 'open'
            RETURNING *
            """
        static let updateCause = "UPDATE incidents SET cause = ?, locations = ? WHERE id = ?"
        static let find = "SELECT * FROM incidents WHERE id = ?"
        static let list = """
            SELECT * FROM incidents WHERE (CAST(?1 AS TEXT) IS NULL OR status = ?1) AND (CAST(?2 AS INTEGER) IS NULL OR monitor_id = ?2)
              AND (CAST(?3 AS INTEGER) IS NULL OR id < ?3)
            ORDER BY id DESC LIMIT ?4
            """
        static let acknowledge = """
            UPDATE incidents SET acknowledged_at = ?, acknowledged_by = ?, acknowledged_by_user_id = ?
            WHERE id = ? AND acknowledged_at IS NULL
            """
        static let addTimeline = "INSERT INTO incident_timeline (incident_id, at, event, detail) VALUES (?, ?, ?, ?)"
        static let timeline = "SELECT at, event, detail FROM incident_timeline WHERE incident_id = ? ORDER BY id"
        static let openCount = "SELECT count(*) FROM incidents WHERE status = 'open'"
        static let openByKind = "SELECT kind, count(*) AS n FROM incidents WHERE status = 'open' GROUP BY kind"
        static let openUnacknowledged = "SELECT * FROM incidents WHERE status = 'open' AND acknowledged_at IS NULL ORDER BY id"
    }

    public static func open(_ c: Connection, monitorID: Int64, kind: String, cause: String, locations: [String],
                            at: Int64) throws(StoreError) -> IncidentRecord {
        guard let row = try c.queryOne(SQL.open, [.integer(monitorID), .text(kind), .text(cause), .json(locations), .integer(at)]) else {
            throw StoreError.misuse("INSERT … RETURNING gave no row")
        }
        return try IncidentRecord(row: row)
    }

    public static func findOpen(_ c: Connection, monitorID: Int64, kind: String) throws(StoreError) -> IncidentRecord? {
        try c.queryOne(SQL.findOpen, [.integer(monitorID), .text(kind)]).map { r throws(StoreError) in try IncidentRecord(row: r) }
    }

    public static func openFor(_ c: Connection, monitorID: Int64) throws(StoreError) -> [IncidentRecord] {
        try c.query(SQL.openFor, [.integer(monitorID)]).map { r throws(StoreError) in try IncidentRecord(row: r) }
    }

    /// Closes the open incident of that kind; nil when there was none.
    public static func close(_ c: Connection, monitorID: Int64, kind: String, at: Int64) throws(StoreError) -> IncidentRecord? {
        try c.queryOne(SQL.close, [.integer(at), .integer(monitorID), .text(kind)]).map { r throws(StoreError) in
            try IncidentRecord(row: r)
        }
    }

    public static func updateCause(_ c: Connection, id: Int64, cause: String, locations: [String]) throws(StoreError) {
        try c.execute(SQL.updateCause, [.text(cause), .json(locations), .integer(id)])
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> IncidentRecord? {
        try c.queryOne(SQL.find, [.integer(id)]).map { r throws(StoreError) in try IncidentRecord(row: r) }
    }

    /// The incident, its row locked until the transaction ends (PostgreSQL):
    /// an escalation step and an acknowledgement or close of the same
    /// incident take turns, so a step is either written before them or sees
    /// them. `skipLocked`: nil at once when another transaction holds the
    /// row (the caller tries again later) instead of waiting.
    public static func findForUpdate(_ c: Connection, id: Int64, skipLocked: Bool = false) throws(StoreError) -> IncidentRecord? {
        try c.queryOne(SQL.find + (skipLocked ? c.forUpdateSkipLocked : c.forUpdate), [.integer(id)])
            .map { r throws(StoreError) in try IncidentRecord(row: r) }
    }

    /// Newest first; `beforeID` pages backwards.
    public static func list(_ c: Connection, status: String?, monitorID: Int64?, beforeID: Int64?,
                            limit: Int) throws(StoreError) -> [IncidentRecord] {
        try c.query(SQL.list, [SQLValue(status), SQLValue(monitorID), SQLValue(beforeID), .integer(Int64(limit))])
            .map { r throws(StoreError) in try IncidentRecord(row: r) }
    }

    /// Records the first acknowledgement; returns false if it was already acknowledged.
    /// `userID` nil: acknowledged through an e-mailed or chat link, by no account.
    public static func acknowledge(_ c: Connection, id: Int64, by: String, userID: Int64?, at: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.acknowledge, [.integer(at), .text(by), SQLValue(userID), .integer(id)])
        return c.changes > 0
    }

    public static func addTimeline(_ c: Connection, incidentID: Int64, at: Int64, event: String, detail: String) throws(StoreError) {
        try c.execute(SQL.addTimeline, [.integer(incidentID), .integer(at), .text(event), .text(detail)])
    }

    public static func timeline(_ c: Connection, incidentID: Int64) throws(StoreError) -> [TimelineEntry] {
        try c.query(SQL.timeline, [.integer(incidentID)]).map { r throws(StoreError) in
            TimelineEntry(at: try r.int("at"), event: try r.text("event"), detail: try r.text("detail"))
        }
    }

    /// Open incidents nobody has acknowledged: the ones channels remind about.
    public static func openUnacknowledged(_ c: Connection) throws(StoreError) -> [IncidentRecord] {
        try c.query(SQL.openUnacknowledged).map { r throws(StoreError) in try IncidentRecord(row: r) }
    }

    public static func openCount(_ c: Connection) throws(StoreError) -> Int {
        Int(try c.scalar(SQL.openCount)?.integerValue ?? 0)
    }

    /// Open incidents per kind (kinds with none are absent).
    public static func openByKind(_ c: Connection) throws(StoreError) -> [String: Int] {
        var out: [String: Int] = [:]
        for row in try c.query(SQL.openByKind) { out[try row.text("kind")] = Int(try row.int("n")) }
        return out
    }
}
