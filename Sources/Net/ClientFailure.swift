import HTTP

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
