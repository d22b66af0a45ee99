/// What one location has seen of a monitor.
public struct LocationState: Sendable, Equatable {
    /// The outcome of its latest accepted result; nil before the first.
    public var outcome: CheckOutcome?
    /// Failed checks in a row (a success resets it).
    public var consecutiveFailures: Int
    /// Slow successful checks in a row (a fast success resets it; a failure leaves it alone).
    public var consecutiveSlow: Int
    /// Time of its latest accepted result; older results are ignored.
    public var lastAt: Int64?
    /// The cause text of its latest failure ("HTTP 503", "connection refused"); nil after a success.
    public var lastError: String?
    /// Latency of its latest successful check (for the `degraded` cause text).
    public var lastLatencyMs: Int?

    public init(outcome: CheckOutcome? = nil, consecutiveFailures: Int = 0, consecutiveSlow: Int = 0,
                lastAt: Int64? = nil, lastError: String? = nil, lastLatencyMs: Int? = nil) {
        self.outcome = outcome
        self.consecutiveFailures = consecutiveFailures
        self.consecutiveSlow = consecutiveSlow
        self.lastAt = lastAt
        self.lastError = lastError
        self.lastLatencyMs = lastLatencyMs
    }
}
