/// The raw verdict of one check at one location. `degraded` is not an
/// outcome: it is derived from latency by the state machine.
public enum CheckOutcome: String, Sendable, Equatable {
    case up, down
}

/// One check's result at one location.
public struct CheckResult: Sendable, Equatable {
    /// Unix seconds.
    public var at: Int64
    public var location: String
    public var outcome: CheckOutcome
    public var latencyMs: Int?
    public var statusCode: Int?
    public var error: String?
    /// The certificate's `notAfter` (Unix seconds) when the check saw one.
    public var certNotAfter: Int64?
    /// The start in Unix milliseconds when the checker reported it (agents
    /// do); stored as is, so a retried upload is recognised. nil = `at`·1000.
    public var atMs: Int64?
    /// Ping checks: the share of echo requests without a reply, 0–1.
    public var packetLoss: Double?

    public init(at: Int64, location: String = "hub", outcome: CheckOutcome, latencyMs: Int? = nil,
                statusCode: Int? = nil, error: String? = nil, certNotAfter: Int64? = nil, atMs: Int64? = nil,
                packetLoss: Double? = nil) {
        self.at = at
        self.location = location
        self.outcome = outcome
        self.latencyMs = latencyMs
        self.statusCode = statusCode
        self.error = error
        self.certNotAfter = certNotAfter
        self.atMs = atMs
        self.packetLoss = packetLoss
    }
}
