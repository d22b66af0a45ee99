import Core
import Monitoring

/// One check result on its way to the hub (`POST /api/agent/results`).
public struct AgentResult: Sendable, Equatable {
    public var monitorID: Int64
    /// Unix milliseconds when the check started; with the monitor and the
    /// location it identifies the result, so a retried upload stores nothing twice.
    public var atMillis: Int64
    public var check: CheckResult
    /// Set when the result answers a check-now request.
    public var requestID: String?

    public init(monitorID: Int64, atMillis: Int64, check: CheckResult, requestID: String? = nil) {
        self.monitorID = monitorID
        self.atMillis = atMillis
        self.check = check
        self.requestID = requestID
    }

    /// The wire form (docs/agents.md); `request_id` only when there is one.
    public func json() -> JSON {
        var o = JSONObject([
            ("monitor_id", .int(monitorID)), ("at", .int(atMillis)), ("status", .string(check.outcome.rawValue)),
            ("latency_ms", .from(check.latencyMs.map(Int64.init))), ("status_code", .from(check.statusCode.map(Int64.init))),
            ("error", .from(check.error)), ("cert_not_after", .from(check.certNotAfter)),
        ])
        if let requestID { o["request_id"] = .string(requestID) }
        return .object(o)
    }

    /// `{"results": [...]}`
    static func batchJSON(_ results: [AgentResult]) -> JSON {
        .object(JSONObject([("results", .array(results.map { $0.json() }))]))
    }
}
