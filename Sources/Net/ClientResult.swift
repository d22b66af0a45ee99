import HTTP

public struct ClientResult: Sendable {
    public var response: ClientResponse?
    public var failure: ClientFailure?
    public var timings: ClientTimings
    /// Filled whenever a handshake produced a certificate, even when
    /// verification failed or `verifyTLS` is false.
    public var tls: TLSInfo?
    /// "connection refused", "timed out after 10000 ms (connect)",
    /// "TLS: certificate has expired"; nil on success (an HTTP 503 is a
    /// success here: the status is in `response`).
    public var errorDescription: String?
}
