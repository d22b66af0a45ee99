import HTTP

/// A TCP check: resolve, connect, close.
public struct TCPProbeResult: Sendable {
    public var failure: ClientFailure?
    /// dnsMs, connectMs and totalMs are filled.
    public var timings: ClientTimings
    /// The numeric address that accepted the connection.
    public var address: String?
    public var errorDescription: String?
}

/// A TLS check: resolve, connect, handshake, close.
public struct TLSProbeResult: Sendable {
    public var failure: ClientFailure?
    /// dnsMs, connectMs, tlsMs and totalMs are filled.
    public var timings: ClientTimings
    public var tls: TLSInfo?
    public var address: String?
    public var errorDescription: String?
}
