/// A row of `incident_escalations`: where an incident's escalation chain
/// stands (SPEC §10).
public struct EscalationStateRecord: Sendable, Equatable {
    public var incidentID: Int64
    /// The policy the chain follows (the monitor's when the incident opened).
    public var policyID: Int64
    /// The `monitor_down` event the steps send again (outbox rows name it).
    public var eventID: Int64?
    /// 0 on the first pass through the chain, then 1 per repeat.
    public var round: Int64 = 0
    /// The last step sent in this round, from 1; 0 = none yet.
    public var step: Int64 = 0
    /// When the next step is due; nil once the chain ran out or stopped.
    public var nextAt: Int64?
    /// Every channel alerted for the incident so far (they all get `monitor_up`).
    public var alerted: [Int64] = []
    /// Grows with every change: advances are conditional on it.
    public var version: Int64 = 0
    public var updatedAt: Int64 = 0

    public init(incidentID: Int64, policyID: Int64, eventID: Int64?, round: Int64 = 0, step: Int64 = 0, nextAt: Int64?,
                alerted: [Int64] = []) {
        self.incidentID = incidentID
        self.policyID = policyID
        self.eventID = eventID
        self.round = round
        self.step = step
        self.nextAt = nextAt
        self.alerted = alerted
    }

    init(row r: Row) throws(StoreError) {
        self.init(incidentID: try r.int("incident_id"), policyID: try r.int("policy_id"), eventID: try r.optionalInt("event_id"),
                  round: try r.int("round"), step: try r.int("step"), nextAt: try r.optionalInt("next_at"),
                  alerted: try r.intArray("alerted", table: "incident_escalations"))
        version = try r.int("version")
        updatedAt = try r.int("updated_at")
    }
}

/// Queries on `incident_escalations` (the only SQL that touches the table).
///
/// Claiming a due step, on either engine and with any number of hubs:
/// `claimDue` reads the row only while it is due, locking it on PostgreSQL
/// and skipping it when another hub holds the lock (`SKIP LOCKED`); then
/// `advance` writes the new position only if `version` is still the one
/// read. Both run in the transaction that writes the step's outbox rows,
/// so a step is written once or not at all: a hub that loses either race
/// writes nothing, and a crash before COMMIT leaves the step due.
public enum Escalations {
    enum SQL {
        static let insert = """
            INSERT INTO incident_escalations (incident_id, policy_id, event_id, round, step, next_at, alerted, version, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)
            ON CONFLICT (incident_id) DO NOTHING
            """
        static let find = "SELECT * FROM incident_escalations WHERE incident_id = ?"
        static let due = """
            SELECT incident_id FROM incident_escalations WHERE next_at IS NOT NULL AND next_at <= ? ORDER BY next_at, incident_id LIMIT ?
            """
        static let claimDue = "SELECT * FROM incident_escalations WHERE incident_id = ? AND next_at IS NOT NULL AND next_at <= ?"
        static let advance = """
            UPDATE incident_escalations SET round = ?, step = ?, next_at = ?, alerted = ?, version = version + 1, updated_at = ?
            WHERE incident_id = ? AND version = ?
            """
        static let stop = """
            UPDATE incident_escalations SET next_at = NULL, version = version + 1, updated_at = ?
            WHERE incident_id = ? AND next_at IS NOT NULL
            """
        static let nextDue = "SELECT min(next_at) AS t FROM incident_escalations WHERE next_at IS NOT NULL"
        static let active = "SELECT count(*) FROM incident_escalations WHERE next_at IS NOT NULL"
    }

    /// Starts an incident's chain; false when it already has one (the
    /// incident opened once, its chain starts once).
    @discardableResult
    public static func start(_ c: Connection, _ s: EscalationStateRecord, now: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.insert, [.integer(s.incidentID), .integer(s.policyID), SQLValue(s.eventID), .integer(s.round),
                                   .integer(s.step), SQLValue(s.nextAt), .json(s.alerted), .integer(now)])
        return c.changes > 0
    }

    public static func find(_ c: Connection, incidentID: Int64) throws(StoreError) -> EscalationStateRecord? {
        try c.queryOne(SQL.find, [.integer(incidentID)]).map { r throws(StoreError) in try EscalationStateRecord(row: r) }
    }

    /// The rows of these incidents, by incident id (one query for a page of incidents).
    public static func find(_ c: Connection, incidentIDs: [Int64]) throws(StoreError) -> [Int64: EscalationStateRecord] {
        guard !incidentIDs.isEmpty else { return [:] }
        var out: [Int64: EscalationStateRecord] = [:]
        for chunk in stride(from: 0, to: incidentIDs.count, by: 500).map({ Array(incidentIDs[$0..<min($0 + 500, incidentIDs.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            for r in try c.query("SELECT * FROM incident_escalations WHERE incident_id IN (\(marks))", chunk.map { .integer($0) }) {
                let s = try EscalationStateRecord(row: r)
                out[s.incidentID] = s
            }
        }
        return out
    }

    /// Incidents whose next step is due at `now`, the most overdue first.
    /// Only a list to try: each is claimed in its own transaction.
    public static func due(_ c: Connection, now: Int64, limit: Int) throws(StoreError) -> [Int64] {
        try c.query(SQL.due, [.integer(now), .integer(Int64(limit))]).map { r throws(StoreError) in try r.int("incident_id") }
    }

    /// The row, if its step is still due and (PostgreSQL) no other hub is
    /// working on it right now; locked until COMMIT. Call in a write transaction.
    public static func claimDue(_ c: Connection, incidentID: Int64, now: Int64) throws(StoreError) -> EscalationStateRecord? {
        try c.queryOne(SQL.claimDue + c.forUpdateSkipLocked, [.integer(incidentID), .integer(now)])
            .map { r throws(StoreError) in try EscalationStateRecord(row: r) }
    }

    /// Moves the chain to `s`'s round, step, next time and alerted channels
    /// if nobody changed the row since `s.version` was read (compare-and-set).
    /// Returns whether it did.
    public static func advance(_ c: Connection, _ s: EscalationStateRecord, now: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.advance, [.integer(s.round), .integer(s.step), SQLValue(s.nextAt), .json(s.alerted), .integer(now),
                                    .integer(s.incidentID), .integer(s.version)])
        return c.changes > 0
    }

    /// Stops the chain for good (acknowledged, closed, policy gone); the
    /// row stays for `monitor_up`. Returns whether it was running.
    @discardableResult
    public static func stop(_ c: Connection, incidentID: Int64, now: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.stop, [.integer(now), .integer(incidentID)])
        return c.changes > 0
    }

    /// When the earliest step is due (nil: no chain is running).
    public static func nextDue(_ c: Connection) throws(StoreError) -> Int64? {
        try c.queryOne(SQL.nextDue).flatMap { r throws(StoreError) in try r.optionalInt("t") }
    }

    /// How many chains are running.
    public static func activeCount(_ c: Connection) throws(StoreError) -> Int {
        Int(try c.scalar(SQL.active)?.integerValue ?? 0)
    }
}
