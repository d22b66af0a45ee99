import HTTP

/// One outbound HTTP(S) exchange, redirects included.
public struct ClientRequest: Sendable {
    public var method = "GET"
    /// `http://` or `https://`.
    public var url: String
    public var headers: [(String, String)] = []
    public var body: [UInt8]? = nil
    /// Total deadline: queueing, every phase and every redirect hop.
    public var timeoutMillis = 10_000
    public var followRedirects = true
    public var maxRedirects = 10
    /// When false the certificate and host checks are still run and reported
    /// in `ClientResult.tls`, but never fail the request.
    public var verifyTLS = true
    /// Body bytes kept; the rest is read and dropped (`bodyTruncated`).
    public var maxBodyBytes = 1 << 20
    /// Hard cap on body bytes read in all: past it the connection is closed
    /// and the response returned as it is (`bodyTruncated`).
    public var maxReadBytes = 16 << 20

    public init(url: String) { self.url = url }

    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

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

/// What the server's certificate said, captured after every handshake that
/// produced a certificate, whether or not it verified.
public struct TLSInfo: Sendable, Equatable {
    /// Chain and host name both verified.
    public var verified: Bool
    /// OpenSSL's text for the first problem (`certificate has expired`,
    /// `hostname mismatch`), nil when verified.
    public var verifyError: String?
    /// Whether the certificate matches the host name (or IP) asked for.
    public var hostnameMatches: Bool
    /// Unix seconds.
    public var notBefore: Int64
    public var notAfter: Int64
    /// RFC 2253 (`CN=localhost,O=Example`).
    public var subject: String
    public var issuer: String
    public var dnsNames: [String]
    /// `TLSv1.3`, `TLSv1.2`.
    public var protocolVersion: String
    public var cipher: String

    /// Whole days until `notAfter` from `now` (negative once expired).
    public func daysUntilExpiry(now: Int64) -> Int64 {
        let d = notAfter - now
        return d >= 0 ? d / 86_400 : -((-d + 86_399) / 86_400)
    }
}

public struct ClientResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var bodyTruncated: Bool
    public var finalURL: String
    public var redirects: Int
}

public enum ClientFailure: Sendable, Equatable, Error {
    case invalidURL(String)
    case dns(String)
    /// Socket-level trouble: refused, unreachable, reset.
    case connect(String)
    case tls(String)
    /// Phases: `queue`, `dns`, `connect`, `tls`, `send`, `first_byte`, `body`.
    case timeout(phase: String)
    case protocolError(String)
    case tooManyRedirects
    case cancelled

    /// Human text for check results.
    public func describe(timeoutMillis: Int) -> String {
        switch self {
        case .invalidURL(let s): return "invalid URL: \(s)"
        case .dns(let s): return "DNS: \(s)"
        case .connect(let s): return s
        case .tls(let s): return "TLS: \(s)"
        case .timeout(let phase): return "timed out after \(timeoutMillis) ms (\(phase))"
        case .protocolError(let s): return "protocol error: \(s)"
        case .tooManyRedirects: return "too many redirects"
        case .cancelled: return "cancelled"
        }
    }
}

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
