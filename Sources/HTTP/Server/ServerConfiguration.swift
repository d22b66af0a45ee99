/// Everything the server needs to know, filled from the hub's config.
public struct ServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 asks the kernel for a free port (tests); `HTTPServer.port` tells which.
    public var port: UInt16 = 8080
    /// Event-loop threads; 0 = one per core.
    public var eventLoops: Int = 0
    /// Handler threads for `pool` routes.
    public var workers: Int = 4
    /// Handler threads for `blocking` routes.
    public var blockingWorkers: Int = 32
    public var maxConnections: Int = 10_000
    public var limits = HTTPLimits()
    /// A request's head must be complete this long after its first byte.
    public var headerTimeoutMillis: Int = 10_000
    /// An idle keep-alive connection (or a stalled body or write) is closed after this.
    public var idleTimeoutMillis: Int = 60_000
    /// How long shutdown waits for in-flight requests.
    public var shutdownTimeoutMillis: Int = 10_000
    public var accessLog: Bool = true
    public var trustedProxies = TrustedProxies()

    public init() {}
}
