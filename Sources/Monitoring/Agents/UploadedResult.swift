import Core

/// One check result as it travels from an agent to the hub
/// (`POST /api/agent/results`, docs/agents.md): the agent builds and encodes
/// it, the hub decodes and validates it — one type, so the wire form is
/// written in one place.
public struct UploadedResult: Sendable, Equatable {
    public var monitorID: Int64
    /// Unix milliseconds when the check started; with the monitor and the
    /// location it identifies the result, so a retried upload stores nothing twice.
    public var atMs: Int64
    public var outcome: CheckOutcome
    public var latencyMs: Int?
    public var statusCode: Int?
    public var error: String?
    public var certNotAfter: Int64?
    /// Set when the result answers a check-now request.
    public var requestID: String?
    /// Ping checks, 0–1 (SPEC §12).
    public var packetLoss: Double?

    public init(monitorID: Int64, atMs: Int64, outcome: CheckOutcome, latencyMs: Int? = nil, statusCode: Int? = nil,
                error: String? = nil, certNotAfter: Int64? = nil, requestID: String? = nil) {
        self.monitorID = monitorID
        self.atMs = atMs
        self.outcome = outcome
        self.latencyMs = latencyMs
        self.statusCode = statusCode
        self.error = error
        self.certNotAfter = certNotAfter
        self.requestID = requestID
    }

    /// An agent's own check, started at `atMs`.
    public init(check: CheckResult, monitorID: Int64, atMs: Int64, requestID: String? = nil) {
        self.init(monitorID: monitorID, atMs: atMs, outcome: check.outcome, latencyMs: check.latencyMs,
                  statusCode: check.statusCode, error: check.error, certNotAfter: check.certNotAfter, requestID: requestID)
        packetLoss = check.packetLoss
    }

    /// The wire form; `request_id` only when there is one.
    public func json() -> JSON {
        var o = JSONObject([
            ("monitor_id", .int(monitorID)), ("at", .int(atMs)), ("status", .string(outcome.rawValue)),
            ("latency_ms", .from(latencyMs.map(Int64.init))), ("status_code", .from(statusCode.map(Int64.init))),
            ("error", .from(error)), ("cert_not_after", .from(certNotAfter)),
        ])
        if let requestID { o["request_id"] = .string(requestID) }
        // Only ping results carry it, so an older hub sees the fields it knows.
        if let packetLoss { o["packet_loss"] = .double(packetLoss) }
        return .object(o)
    }

    /// `{"results": [...]}`
    public static func batchJSON(_ results: [UploadedResult]) -> JSON {
        .object(JSONObject([("results", .array(results.map { $0.json() }))]))
    }

    /// One validated result from an upload; any invalid field refuses the
    /// whole upload (nothing is stored), so a broken agent is noticed rather
    /// than half-recorded.
    public init(fields f: JSONFields) throws(JSONFieldError) {
        guard let monitorID = try f.int("monitor_id", in: 1...Int64.max) else {
            throw JSONFieldError(field: f.name("monitor_id"), message: "\(f.name("monitor_id")) is required.")
        }
        guard let at = try f.int("at", in: 1...253_402_300_799_999) else {
            throw JSONFieldError(field: f.name("at"), message: "\(f.name("at")) (Unix milliseconds) is required.")
        }
        guard let status = try f.oneOf("status", ["up", "down"]) else {
            throw JSONFieldError(field: f.name("status"), message: "\(f.name("status")) is required: up or down.")
        }
        let error = try f.string("error")
        if let error, error.utf8.count > 1000 {
            throw JSONFieldError(field: f.name("error"), message: "\(f.name("error")) is longer than 1000 bytes.")
        }
        let requestID = try f.string("request_id")
        if let requestID, requestID.isEmpty || requestID.utf8.count > 64 {
            throw JSONFieldError(field: f.name("request_id"), message: "\(f.name("request_id")) must be 1-64 characters.")
        }
        self.init(monitorID: monitorID, atMs: at, outcome: status == "up" ? .up : .down,
                  latencyMs: try f.int("latency_ms", in: 0...86_400_000).map(Int.init),
                  statusCode: try f.int("status_code", in: 100...599).map(Int.init),
                  error: error, certNotAfter: try f.int("cert_not_after", in: 0...253_402_300_799),
                  requestID: requestID)
        switch f.object["packet_loss"] {
        case nil, .null?: break
        case .int(let i)? where (0...1).contains(i): packetLoss = Double(i)
        case .double(let d)? where d >= 0 && d <= 1: packetLoss = d
        default:
            throw JSONFieldError(field: f.name("packet_loss"), message: "\(f.name("packet_loss")) must be a number from 0 to 1.")
        }
    }
}
