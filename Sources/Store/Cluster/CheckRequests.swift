/// An agent's answer to a check-now request, as its upload carried it
/// (the fields the check-now response shows).
public struct CheckRequestAnswer: Sendable, Equatable {
    /// When the agent's check started (Unix ms).
    public var atMs: Int64
    /// "up" or "down".
    public var status: String
    public var latencyMs: Int64?
    public var statusCode: Int64?
    public var error: String?
    public var certNotAfter: Int64?
    /// Ping checks, 0–1.
    public var packetLoss: Double?

    public init(atMs: Int64, status: String, latencyMs: Int64?, statusCode: Int64?, error: String?, certNotAfter: Int64?,
                packetLoss: Double? = nil) {
        self.atMs = atMs
        self.status = status
        self.latencyMs = latencyMs
        self.statusCode = statusCode
        self.error = error
        self.certNotAfter = certNotAfter
        self.packetLoss = packetLoss
    }
}

/// A check-now request handed to an agent: what its poll answer names.
public struct ClaimedCheckRequest: Sendable, Equatable {
    public var id: String
    public var monitorID: Int64
    public var agentID: Int64

    public init(id: String, monitorID: Int64, agentID: Int64) {
        self.id = id
        self.monitorID = monitorID
        self.agentID = agentID
    }
}

/// Check-now requests shared by the hubs of one database (migration 0015).
/// Times are Unix milliseconds. Every change is a compare-and-set, so two
/// hubs racing for one row cannot both win.
public enum CheckRequests {
    enum SQL {
        static let insert = """
            INSERT INTO check_requests (id, monitor_id, agent_id, asked_by, expires_at) VALUES (?, ?, ?, ?, ?)
            """
        static let purge = "DELETE FROM check_requests WHERE expires_at < ?"
        static let claim = """
            UPDATE check_requests SET taken_by = ? WHERE agent_id = ? AND taken_by IS NULL AND expires_at > ?
            RETURNING id, monitor_id, agent_id
            """
        static let open = "SELECT DISTINCT agent_id FROM check_requests WHERE taken_by IS NULL AND expires_at > ? ORDER BY agent_id"
        static let answer = """
            UPDATE check_requests SET answer_at_ms = ?, answer_status = ?, answer_latency_ms = ?, answer_status_code = ?,
              answer_error = ?, answer_cert_not_after = ?, answer_packet_loss = ?
            WHERE id = ? AND agent_id = ? AND monitor_id = ? AND taken_by IS NOT NULL AND answer_at_ms IS NULL
            RETURNING asked_by
            """
        static let answerOf = "SELECT * FROM check_requests WHERE id = ? AND answer_at_ms IS NOT NULL"
        static let delete = "DELETE FROM check_requests WHERE id = ?"
    }

    /// One request per agent, waiting until `expiresAt`. Rows of check-nows
    /// that ended long ago (an asking hub that died) go first, so the table
    /// holds a few seconds of requests at most.
    public static func insert(_ c: Connection, ids: [(id: String, agentID: Int64)], monitorID: Int64, askedBy: String,
                              now: Int64, expiresAt: Int64) throws(StoreError) {
        try c.execute(SQL.purge, [.integer(now - 60_000)])
        for r in ids {
            try c.execute(SQL.insert, [.text(r.id), .integer(monitorID), .integer(r.agentID), .text(askedBy), .integer(expiresAt)])
        }
    }

    /// Takes the agent's open requests for the poll `node` holds: each is
    /// handed out once, and never after it expired (the check-now stopped
    /// waiting for it).
    public static func claim(_ c: Connection, agentID: Int64, node: String, now: Int64) throws(StoreError) -> [ClaimedCheckRequest] {
        try c.query(SQL.claim, [.text(node), .integer(agentID), .integer(now)]).map { r throws(StoreError) in
            ClaimedCheckRequest(id: try r.text("id"), monitorID: try r.int("monitor_id"), agentID: try r.int("agent_id"))
        }.sorted { $0.id < $1.id }
    }

    /// Agents with requests nobody has handed out yet (a resync's view).
    public static func openAgents(_ c: Connection, now: Int64) throws(StoreError) -> [Int64] {
        try c.query(SQL.open, [.integer(now)]).map { r throws(StoreError) in try r.int("agent_id") }
    }

    /// Records the agent's answer, once, if the request was handed to this
    /// agent for this monitor. Returns the asking hub's id (nil: no such
    /// request, or answered already).
    public static func answer(_ c: Connection, id: String, agentID: Int64, monitorID: Int64,
                              _ a: CheckRequestAnswer) throws(StoreError) -> String? {
        try c.queryOne(SQL.answer, [
            .integer(a.atMs), .text(a.status), a.latencyMs.map { .integer($0) } ?? .null, a.statusCode.map { .integer($0) } ?? .null,
            a.error.map { .text($0) } ?? .null, a.certNotAfter.map { .integer($0) } ?? .null, SQLValue(a.packetLoss),
            .text(id), .integer(agentID), .integer(monitorID),
        ]).map { r throws(StoreError) in try r.text("asked_by") }
    }

    /// The answer to a request, once there is one: (agent, answer).
    public static func answerOf(_ c: Connection, id: String) throws(StoreError) -> (agentID: Int64, answer: CheckRequestAnswer)? {
        guard let r = try c.queryOne(SQL.answerOf, [.text(id)]) else { return nil }
        return (try r.int("agent_id"), CheckRequestAnswer(
            atMs: try r.int("answer_at_ms"), status: try r.text("answer_status"), latencyMs: try r.optionalInt("answer_latency_ms"),
            statusCode: try r.optionalInt("answer_status_code"), error: try r.optionalText("answer_error"),
            certNotAfter: try r.optionalInt("answer_cert_not_after"), packetLoss: try r.optionalDouble("answer_packet_loss")))
    }

    /// The check-now is over: its requests are withdrawn (answered or not).
    public static func delete(_ c: Connection, ids: [String]) throws(StoreError) {
        for id in ids { try c.execute(SQL.delete, [.text(id)]) }
    }
}
