import HTTP

/// Phases of the final hop, in milliseconds; `totalMs` covers everything
/// from `execute` to completion (queueing and redirects included).
public struct ClientTimings: Sendable, Equatable {
    /// 0 for IP literals (and near 0 for cache hits).
    public var dnsMs: Double = 0
    public var connectMs: Double = 0
    public var tlsMs: Double = 0
    /// Request fully written → first response byte.
    public var firstByteMs: Double = 0
    public var totalMs: Double = 0
    public init() {}
}
