import HTTP

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
