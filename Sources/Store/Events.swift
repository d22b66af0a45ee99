/// A domain event (`monitor_down`, …) for the alerting side.
public struct EventRecord: Sendable, Equatable {
    public var id: Int64 = 0
    public var kind: String
    public var monitorID: Int64?
    public var incidentID: Int64?
    public var at: Int64
    public var cause: String
    /// Location names (JSON text in the table).
    public var locations: [String]
    /// Raised during maintenance: recorded, never alerted.
    public var suppressed: Bool
    /// What the alert said when it was raised (`describe`); nil on rows from
    /// before SPEC §10 and on events no notifier saw.
    public var priority: Int64?
    public var title: String?
    public var body: String?

    public init(kind: String, monitorID: Int64?, incidentID: Int64?, at: Int64, cause: String, locations: [String], suppressed: Bool) {
        self.kind = kind
        self.monitorID = monitorID
        self.incidentID = incidentID
        self.at = at
        self.cause = cause
        self.locations = locations
        self.suppressed = suppressed
    }

    init(row r: Row) throws(StoreError) {
        self.init(kind: try r.text("kind"), monitorID: try r.optionalInt("monitor_id"), incidentID: try r.optionalInt("incident_id"),
                  at: try r.int("at"), cause: try r.text("cause"), locations: try r.stringArray("locations", table: "events"),
                  suppressed: try r.bool("suppressed"))
        id = try r.int("id")
        priority = try r.optionalInt("priority")
        title = try r.optionalText("title")
        body = try r.optionalText("body")
    }
}

/// Queries on `events`.
public enum Events {
    enum SQL {
        static let insert = """
            INSERT INTO events (kind, monitor_id, incident_id, at, cause, locations, suppressed) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id
            """
        static let list = "SELECT * FROM events WHERE (CAST(?1 AS INTEGER) IS NULL OR monitor_id = ?1) AND id > ?2 ORDER BY id LIMIT ?3"
        static let describe = "UPDATE events SET priority = ?, title = ?, body = ? WHERE id = ?"
        static let deleteBefore = "DELETE FROM events WHERE id IN (SELECT id FROM events WHERE at < ? ORDER BY id LIMIT ?)"
        static let latestForIncident = "SELECT * FROM events WHERE incident_id = ? AND kind = ? ORDER BY id DESC LIMIT 1"
    }

    public static func insert(_ c: Connection, _ e: EventRecord) throws(StoreError) -> Int64 {
        try c.insertReturningID(SQL.insert, [.text(e.kind), SQLValue(e.monitorID), SQLValue(e.incidentID), .integer(e.at),
                                             .text(e.cause), .json(e.locations), SQLValue(e.suppressed)])
    }

    /// Records what the alert for event `id` said (in the event's own
    /// transaction, by the notifier), for the events feed.
    public static func describe(_ c: Connection, id: Int64, priority: Int64, title: String, body: String) throws(StoreError) {
        try c.execute(SQL.describe, [.integer(priority), .text(title), .text(body), .integer(id)])
    }

    /// The newest event of `kind` for an incident: the alert a reminder repeats.
    public static func latest(_ c: Connection, incidentID: Int64, kind: String) throws(StoreError) -> EventRecord? {
        try c.queryOne(SQL.latestForIncident, [.integer(incidentID), .text(kind)]).map { r throws(StoreError) in
            try EventRecord(row: r)
        }
    }

    /// Deletes up to `limit` events raised before `at` (oldest first);
    /// returns how many went. Outbox rows keep their payload (`event_id`
    /// becomes NULL).
    public static func deleteBefore(_ c: Connection, at: Int64, limit: Int) throws(StoreError) -> Int {
        try c.execute(SQL.deleteBefore, [.integer(at), .integer(Int64(limit))])
        return c.changes
    }

    /// Oldest first, after `afterID`.
    public static func list(_ c: Connection, monitorID: Int64?, afterID: Int64, limit: Int) throws(StoreError) -> [EventRecord] {
        try c.query(SQL.list, [SQLValue(monitorID), .integer(afterID), .integer(Int64(limit))]).map { r throws(StoreError) in
            try EventRecord(row: r)
        }
    }
}

/// Told of every event inside the write transaction that inserted it, so the
/// alerting side can write its outbox rows atomically with the event (the
/// Notify module implements it; Monitoring only knows this protocol).
public protocol EventSink: Sendable {
    func didInsert(_ event: EventRecord, on c: Connection) throws(StoreError)
    /// Incidents of `monitorID` opened or closed in this transaction (the
    /// Live Activity follows the set of down monitors, events or not).
    func incidentsChanged(monitorID: Int64, on c: Connection) throws(StoreError)
    /// `incident` was just acknowledged on the hub by `by`, in this
    /// transaction (paging services acknowledge their alert for it too).
    func incidentAcknowledged(_ incident: IncidentRecord, by: String, on c: Connection) throws(StoreError)
    /// `incident` closed in this transaction (`reason` as its timeline says:
    /// "recovered", "now down", "paused", …), after the events of the same
    /// change were told, so a `monitor_up` for it is already queued.
    func incidentClosed(_ incident: IncidentRecord, reason: String, on c: Connection) throws(StoreError)
}

extension EventSink {
    public func incidentsChanged(monitorID: Int64, on c: Connection) throws(StoreError) {}
    public func incidentAcknowledged(_ incident: IncidentRecord, by: String, on c: Connection) throws(StoreError) {}
    public func incidentClosed(_ incident: IncidentRecord, reason: String, on c: Connection) throws(StoreError) {}
}
