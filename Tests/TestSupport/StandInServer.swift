import CShims
import Core
import HTTP
import Synchronization

/// The loopback HTTP server under each service stand-in (FakePagerDuty,
/// FakeMatrix, …): it routes to the stand-in's handlers, records every
/// exchange with what was answered, and can be told to answer the next
/// requests with a failure before the handler sees them (a 500 once, a 429).
public final class StandInServer: Sendable {
    public struct Exchange: Sendable {
        public var method: String
        /// Still percent-encoded, as sent.
        public var path: String
        public var query: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]
        public var status: Int
        public var answer: String
        /// `Time.monotonicNanos()` when the request arrived.
        public var atNanos: UInt64
        public var accepted: Bool { (200..<300).contains(status) }
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
        public var json: JSON? { try? JSON.parse(bodyText) }
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// One route of a stand-in: method, pattern (`/v2/alerts/{alias}/close`), handler.
    public struct Route: Sendable {
        /// `handler` for every path up to `depth` segments and each of
        /// `methods`, so a request to a wrong path is answered (and recorded)
        /// the way the service refuses it.
        public static func everyPath(methods: [String] = ["GET", "POST", "PUT"], depth: Int = 8,
                                     _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) -> [Route] {
            var routes: [Route] = []
            var pattern = ""
            for level in 0..<depth {
                for method in methods { routes.append(Route(method, pattern.isEmpty ? "/" : pattern, handler)) }
                pattern += "/{p\(level)}"
            }
            return routes
        }

        let method: String
        let path: String
        let handler: @Sendable (HTTPRequest) -> HTTPResponse
        public init(_ method: String, _ path: String, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
            self.method = method
            self.path = path
            self.handler = handler
        }
    }

    struct Failure: Sendable {
        var status: Int
        var body: String
        var headers: [(String, String)]
    }

    private let server: HTTPServer
    private let log = StandInBox<[Exchange]>([])
    private let failures = StandInBox<[Failure]>([])
    private let stopped = Atomic<Bool>(false)

    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public init(_ routes: [Route]) throws {
        pt_ignore_sigpipe()
        let log = self.log
        let failures = self.failures
        let router = Router { r in
            for route in routes {
                r.add(route.method, route.path, .pool) { req in
                    let at = Time.monotonicNanos()
                    let queued = failures.withLock { f -> Failure? in f.isEmpty ? nil : f.removeFirst() }
                    var response: HTTPResponse
                    if let queued {
                        response = .json(queued.status, queued.body)
                        for (n, v) in queued.headers { response.headers.set(n, v) }
                    } else {
                        response = route.handler(req)
                    }
                    let exchange = Exchange(method: req.method, path: req.path, query: req.head.query,
                                            headers: req.headers.map { ($0.name, $0.value) }, body: req.body, status: response.status,
                                            answer: String(decoding: response.body, as: UTF8.self), atNanos: at)
                    log.withLock { $0.append(exchange) }
                    return response
                }
            }
        }
        server = try HTTPServer(configuration: .loopbackPeer(), router: router)
    }

    deinit { stop() }

    public func stop() {
        if stopped.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            server.shutdown()
        }
    }

    /// The next `count` requests are answered `status` with `body` (JSON)
    /// without reaching the stand-in's handler.
    public func failNext(_ count: Int = 1, status: Int, body: String, headers: [(String, String)] = []) {
        failures.withLock { f in for _ in 0..<count { f.append(Failure(status: status, body: body, headers: headers)) } }
    }

    /// Every exchange so far, oldest first.
    public var exchanges: [Exchange] { log.current }
}

/// What the stand-ins check a request against; each returns the reason a
/// real service would refuse it, or nil.
public enum StandInCheck {
    /// The request's body as a JSON object sent as `application/json`.
    public static func jsonObject(_ req: HTTPRequest) -> JSONObject? {
        guard (req.headers["Content-Type"] ?? "").lowercased().hasPrefix("application/json") else { return nil }
        return (try? JSON.parse(req.body))?.objectValue
    }

    /// A string field of at most `max` Unicode scalars (`required`: present and non-empty).
    public static func text(_ o: JSONObject, _ key: String, max: Int, required: Bool) -> String? {
        switch o[key] {
        case nil, .null?: return required ? "\(key) is required" : nil
        case .string(let s)?:
            if required && s.isEmpty { return "\(key) is empty" }
            return s.unicodeScalars.count > max ? "\(key) is longer than \(max)" : nil
        default: return "\(key) must be a string"
        }
    }

    /// A random-looking id (request ids, event ids).
    public static func newID() -> String { String(UInt64.random(in: 1...UInt64.max), radix: 16) }
}

/// A value shared by a stand-in and its route handlers (a `Mutex` cannot be
/// captured by the handlers itself: it is not copyable).
public final class StandInBox<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    public init(_ initial: Value) { value = Mutex(initial) }
    public func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
    public var current: Value { value.withLock { $0 } }
}
