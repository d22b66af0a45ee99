import CShims
import Core
import HTTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback stand-in for the hub's agent endpoints (docs/agents.md), so
/// the agent is tested without the hub's code: serves the monitors with an
/// ETag (304 on `If-None-Match`), records every result upload, hands out
/// check requests through the long poll, and can answer 503 for a while.
public final class FakeAgentHub: Sendable {
    public struct Upload: Sendable {
        public var results: [JSON]
        public var userAgent: String?
    }

    private let server: HTTPServer
    private let state: FakeAgentHubState
    private let stopped = Atomic<Bool>(false)

    public var port: UInt16 { server.port }
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// `monitors`: monitor objects as `GET /api/monitors/{id}` shows them.
    public init(token: String, agentName: String, agentID: Int64 = 3, pollInterval: Int = 1,
                monitors: [JSON] = []) throws {
        pt_ignore_sigpipe()
        var config = ServerConfiguration()
        config.host = "127.0.0.1"
        config.port = 0
        config.eventLoops = 1
        config.workers = 8  // long polls hold a worker each
        config.accessLog = false
        let state = FakeAgentHubState(token: token, name: agentName, id: agentID, pollInterval: pollInterval)
        state.setMonitors(monitors)
        self.state = state
        let router = Router { r in
            r.add("GET", "/api/agent/monitors", .pool) { req in state.monitors(req) }
            r.add("POST", "/api/agent/results", .pool) { req in state.results(req) }
            r.add("GET", "/api/agent/poll", .pool) { req in state.poll(req) }
        }
        server = try HTTPServer(configuration: config, router: router)
    }

    deinit { stop() }

    public func stop() {
        if stopped.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            state.unavailable.store(false, ordering: .sequentiallyConsistent)
            server.shutdown()
        }
    }

    /// Replaces the assignment (a new ETag).
    public func setMonitors(_ monitors: [JSON]) { state.setMonitors(monitors) }

    /// While true every endpoint answers 503 (the hub "down").
    public func setUnavailable(_ down: Bool) { state.unavailable.store(down, ordering: .sequentiallyConsistent) }

    /// Queues a check-now request for the next (or current) long poll.
    public func requestCheck(requestID: String, monitorID: Int64) {
        state.pending.withLock { $0.append((requestID, monitorID)) }
    }

    /// Every upload accepted, oldest first.
    public var uploads: [Upload] { state.uploads.withLock { $0 } }
    /// Every result accepted, oldest first (duplicates included).
    public var results: [JSON] { uploads.flatMap(\.results) }
    /// `GET /api/agent/monitors` answers by status.
    public var monitorAnswers: [Int: Int] { state.monitorAnswers.withLock { $0 } }
    /// Long polls answered.
    public var polls: Int { state.polls.load(ordering: .relaxed) }
    /// Requests refused with 503 while unavailable.
    public var refused: Int { state.refused.load(ordering: .relaxed) }
    /// Result uploads refused with 503 while unavailable.
    public var refusedUploads: Int { state.refusedUploads.load(ordering: .relaxed) }

    /// Waits (bounded) until `predicate` holds; returns whether it did.
    public func wait(timeoutMillis: Int = 10_000, _ predicate: (FakeAgentHub) -> Bool) -> Bool {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        repeat {
            if predicate(self) { return true }
            usleep(10_000)
        } while Time.monotonicNanos() < deadline
        return predicate(self)
    }
}

private final class FakeAgentHubState: Sendable {
    let token: String
    let name: String
    let id: Int64
    let pollInterval: Int
    let assignment = Mutex<(etag: String, body: [UInt8])>(("", []))
    let version = Atomic<Int>(0)
    let unavailable = Atomic<Bool>(false)
    let pending = Mutex<[(String, Int64)]>([])
    let uploads = Mutex<[FakeAgentHub.Upload]>([])
    let monitorAnswers = Mutex<[Int: Int]>([:])
    let polls = Atomic<Int>(0)
    let refused = Atomic<Int>(0)
    let refusedUploads = Atomic<Int>(0)

    init(token: String, name: String, id: Int64, pollInterval: Int) {
        self.token = token
        self.name = name
        self.id = id
        self.pollInterval = pollInterval
    }

    func setMonitors(_ monitors: [JSON]) {
        let v = version.add(1, ordering: .sequentiallyConsistent).newValue
        let body: JSON = ["agent": ["id": .int(id), "name": .string(name)], "poll_interval": .int(Int64(pollInterval)),
                          "monitors": .array(monitors)]
        assignment.withLock { $0 = ("\"m\(v)\"", body.serialized()) }
    }

    /// 503 while unavailable, 401 for a wrong token; nil = go on.
    private func gate(_ req: HTTPRequest) -> HTTPResponse? {
        if unavailable.load(ordering: .sequentiallyConsistent) {
            refused.add(1, ordering: .relaxed)
            if req.path == "/api/agent/results" { refusedUploads.add(1, ordering: .relaxed) }
            return .json(503, #"{"error":{"code":"unavailable","message":"down for a test"}}"#)
        }
        guard req.headers["Authorization"] == "Bearer \(token)" else {
            return .json(401, #"{"error":{"code":"unauthenticated","message":"bad token"}}"#)
        }
        return nil
    }

    func monitors(_ req: HTTPRequest) -> HTTPResponse {
        let response = gate(req) ?? {
            let (etag, body) = assignment.withLock { $0 }
            var h = HTTPHeaders()
            h.add("ETag", etag)
            if req.headers["If-None-Match"] == etag { return HTTPResponse(status: 304, headers: h) }
            h.add("Content-Type", "application/json")
            return HTTPResponse(status: 200, headers: h, body: body)
        }()
        monitorAnswers.withLock { $0[response.status, default: 0] += 1 }
        return response
    }

    func results(_ req: HTTPRequest) -> HTTPResponse {
        if let refusal = gate(req) { return refusal }
        guard let json = try? JSON.parse(req.body), let list = json["results"]?.arrayValue else {
            return .json(400, #"{"error":{"code":"validation_failed","message":"results"}}"#)
        }
        guard list.count <= 500 else { return .json(413, #"{"error":{"code":"too_large","message":"500 at most"}}"#) }
        uploads.withLock { $0.append(.init(results: list, userAgent: req.headers["User-Agent"])) }
        return .json(200, #"{"accepted":\#(list.count),"ignored":0}"#)
    }

    func poll(_ req: HTTPRequest) -> HTTPResponse {
        if let refusal = gate(req) { return refusal }
        let wait = min(30, max(0, Int(req.query("wait") ?? "") ?? pollInterval))
        let deadline = Time.monotonicNanos() + UInt64(wait) * 1_000_000_000
        var checks: [(String, Int64)] = []
        while true {
            checks = pending.withLock { p in defer { p = [] }; return p }
            if !checks.isEmpty || Time.monotonicNanos() >= deadline || unavailable.load(ordering: .relaxed) { break }
            usleep(10_000)
        }
        polls.add(1, ordering: .relaxed)
        let etag = assignment.withLock { $0.etag }
        let body: JSON = ["checks": .array(checks.map { ["request_id": .string($0.0), "monitor_id": .int($0.1)] }),
                          "monitors_etag": .string(etag)]
        return .json(200, body.serialized())
    }
}
