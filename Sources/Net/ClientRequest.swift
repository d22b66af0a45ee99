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
