/// HTTP version of a request line.
public struct HTTPVersion: Sendable, Equatable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public init(major: Int, minor: Int) { self.major = major; self.minor = minor }
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// Header fields in arrival order; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field of that name with one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.equalNames($0.name, name) }
    }

    /// The first value of that name.
    public subscript(_ name: String) -> String? {
        for f in fields where Self.equalNames(f.name, name) { return f.value }
        return nil
    }

    /// Every value of that name, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.equalNames($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison (header names are ASCII tokens).
    public static func equalNames(_ a: String, _ b: String) -> Bool {
        let ua = a.utf8, ub = b.utf8
        guard ua.count == ub.count else { return false }
        for (x, y) in zip(ua, ub) where x != y {
            let lx = (x >= 65 && x <= 90) ? x + 32 : x
            let ly = (y >= 65 && y <= 90) ? y + 32 : y
            if lx != ly { return false }
        }
        return true
    }
}

extension HTTPHeaders: Equatable {
    /// Same fields in the same order, names and values compared exactly.
    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

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

/// Size limits enforced while parsing (SPEC §2; configurable).
public struct HTTPLimits: Sendable, Equatable {
    /// Request line, CRLF excluded → `414`.
    public var maxRequestLineBytes: Int
    /// Header section (all field lines with their CRLFs, and trailers) → `431`.
    public var maxHeaderBytes: Int
    /// Decoded body → `413`.
    public var maxBodyBytes: Int
    /// Number of header fields → `431`.
    public var maxHeaderCount: Int

    public init(maxRequestLineBytes: Int = 8192, maxHeaderBytes: Int = 16384,
                maxBodyBytes: Int = 1 << 20, maxHeaderCount: Int = 128) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderCount = maxHeaderCount
    }
}

/// An error answer: status plus the `{"error": {code, message, field}}` body.
/// The parser, the server, the router and handlers all throw this.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    public var field: String?
    /// Extra response headers (`Allow`, `WWW-Authenticate`, `Retry-After`).
    public var headers: [String: String]

    public init(_ status: Int, _ code: String, _ message: String, field: String? = nil,
                headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func badRequest(_ message: String, code: String = "bad_request", field: String? = nil) -> HTTPError {
        HTTPError(400, code, message, field: field)
    }
    public static func notFound(_ message: String = "No such resource.") -> HTTPError {
        HTTPError(404, "not_found", message)
    }
}
