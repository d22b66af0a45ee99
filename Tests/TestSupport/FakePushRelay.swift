import CShims
import Core
import HTTP
import Synchronization

/// A stand-in push relay (SPEC §6) that is a real HTTP server on loopback:
/// `/v1/register` hands out hub keys, `/v1/send` checks the bearer key and
/// answers per message. It can be told to fail sends with a status for a
/// while, to forget the current key (→ 401), and to call some push tokens
/// invalid. Every message it accepted is kept, so tests can count by id.
public final class FakePushRelay: Sendable {
    public struct Message: Sendable {
        public var id: String
        public var json: JSON
        public var token: String { json["token"]?.stringValue ?? "" }
        public var kind: String { json["kind"]?.stringValue ?? "" }
        public var payload: JSON { json["payload"] ?? .null }
        public var aps: JSON { payload["aps"] ?? .null }
    }

    public struct Registration: Sendable {
        public var hubID: String
        public var publicURL: String
        public var name: String
        public var key: String
    }

    private let server: HTTPServer
    private let state = RelayState()
    private let stopped = Atomic<Bool>(false)

    public var port: UInt16 { server.port }
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public init() throws {
        pt_ignore_sigpipe()
        let config = ServerConfiguration.loopbackPeer()
        let state = self.state
        let router = Router { r in
            r.add("POST", "/v1/register", .pool) { req in state.register(req) }
            r.add("POST", "/v1/send", .pool) { req in state.send(req) }
        }
        server = try HTTPServer(configuration: config, router: router)
    }

    deinit { stop() }

    public func stop() {
        if stopped.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            server.shutdown()
        }
    }

    /// Sends are answered with `status` (and `Retry-After`) until `healthy()`.
    public func failSends(status: Int, retryAfter: String? = nil) { state.failure.withLock { $0 = (status, retryAfter) } }
    public func healthy() { state.failure.withLock { $0 = nil } }
    /// Registration answers `status` while set.
    public func failRegistrations(status: Int?) { state.registerFailure.withLock { $0 = status } }
    /// The relay forgets every key it issued (sends get 401 until the hub registers again).
    public func forgetKeys() { state.keys.withLock { $0.removeAll() } }
    /// Sends to these push tokens are answered `invalid_token`.
    public func setInvalidTokens(_ tokens: Set<String>) { state.invalid.withLock { $0 = tokens } }

    public var registrations: [Registration] { state.registrations.withLock { $0 } }
    /// Every message answered `sent`, in arrival order (duplicates kept).
    public var delivered: [Message] { state.delivered.withLock { $0 } }
    /// Statuses of every `/v1/send` request and its message count.
    public var sendRequests: [(status: Int, messages: Int)] { state.requests.withLock { $0 } }
}

private final class RelayState: Sendable {
    let failure = Mutex<(Int, String?)?>(nil)
    let registerFailure = Mutex<Int?>(nil)
    let keys = Mutex<Set<String>>([])
    let invalid = Mutex<Set<String>>([])
    let registrations = Mutex<[FakePushRelay.Registration]>([])
    let delivered = Mutex<[FakePushRelay.Message]>([])
    let requests = Mutex<[(status: Int, messages: Int)]>([])

    func register(_ req: HTTPRequest) -> HTTPResponse {
        if let status = registerFailure.withLock({ $0 }) { return .json(status, #"{"error":"unavailable"}"#) }
        guard let j = try? JSON.parse(req.body), let hub = j["hub_id"]?.stringValue, !hub.isEmpty else {
            return .json(400, #"{"error":"hub_id required"}"#)
        }
        let key = "hk_" + String(UInt64.random(in: 1...UInt64.max), radix: 16)
        keys.withLock { _ = $0.insert(key) }
        registrations.withLock {
            $0.append(.init(hubID: hub, publicURL: j["public_url"]?.stringValue ?? "", name: j["name"]?.stringValue ?? "", key: key))
        }
        return .json(200, JSON.object(JSONObject([("hub_key", .string(key))])).text)
    }

    func send(_ req: HTTPRequest) -> HTTPResponse {
        let parsed = try? JSON.parse(req.body)
        let messages = parsed?["messages"]?.arrayValue ?? []
        func answer(_ status: Int, _ body: String, retryAfter: String? = nil) -> HTTPResponse {
            requests.withLock { $0.append((status, messages.count)) }
            var r = HTTPResponse.json(status, body)
            if let retryAfter { r.headers.set("Retry-After", retryAfter) }
            return r
        }
        if let (status, retryAfter) = failure.withLock({ $0 }) {
            return answer(status, #"{"error":"temporarily unavailable"}"#, retryAfter: retryAfter)
        }
        let auth = req.headers["Authorization"] ?? ""
        let known = keys.withLock { ks in ks.contains { auth == "Bearer " + $0 } }
        guard known else { return answer(401, #"{"error":"unknown hub key"}"#) }
        guard parsed?["hub_id"]?.stringValue != nil, messages.count <= 500 else {
            return answer(400, #"{"error":"bad batch"}"#)
        }
        let bad = invalid.withLock { $0 }
        var results: [JSON] = []
        var accepted: [FakePushRelay.Message] = []
        for m in messages {
            let id = m["id"]?.stringValue ?? ""
            let token = m["token"]?.stringValue ?? ""
            if bad.contains(token) {
                results.append(.object(JSONObject([("id", .string(id)), ("status", .string("invalid_token"))])))
            } else {
                accepted.append(.init(id: id, json: m))
                results.append(.object(JSONObject([("id", .string(id)), ("status", .string("sent"))])))
            }
        }
        // The request is on record before its messages count as delivered, so a
        // test that waits for `delivered` sees every request that carried them.
        let response = answer(200, JSON.object(JSONObject([("results", .array(results))])).text)
        delivered.withLock { $0.append(contentsOf: accepted) }
        return response
    }
}
