/// How a request's body is framed, decided from its head.
public enum HTTPBodyFraming: Sendable, Equatable {
    case none
    case contentLength(Int)
    case chunked
}

/// A parsed request line plus header section.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: String
    /// The raw request-target as sent (`/api/me?x=1`).
    public var target: String
    /// The path part of the target, still percent-encoded.
    public var path: String
    /// The query part after `?` (empty when none), still percent-encoded.
    public var query: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var framing: HTTPBodyFraming
    /// Whether the connection stays open after this exchange (version default
    /// plus `Connection: close|keep-alive`).
    public var keepAlive: Bool
    /// `Expect: 100-continue` on a request that has a body.
    public var expectsContinue: Bool

    public init(method: String, target: String, path: String, query: String, version: HTTPVersion,
                headers: HTTPHeaders, framing: HTTPBodyFraming, keepAlive: Bool, expectsContinue: Bool) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.framing = framing
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }
}
