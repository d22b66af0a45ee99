import CShims
import Core
import HTTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real loopback HTTP target for monitoring tests: our own `HTTPServer`
/// with a `Router`, whose answer (status, body) and latency can be changed
/// at run time.
///
/// Routes (GET, POST and HEAD):
/// - `/health` answers the current status (200 unless switched) with the
///   current body, after sleeping the current latency;
/// - `/status/{code}` answers that code (with `Location: /health` for 3xx)
///   and the current body, after the same latency.
public final class SwitchableHTTPTarget: Sendable {
    private let server: HTTPServer
    private let state = TargetState()
    private let stopped = Atomic<Bool>(false)

    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// `http://127.0.0.1:PORT/health`
    public var healthURL: String { baseURL + "/health" }
    /// Requests answered so far (any route).
    public var requests: Int { state.count.load(ordering: .relaxed) }

    public init() throws {
        pt_ignore_sigpipe()
        let config = ServerConfiguration.loopbackPeer()
        let state = self.state
        let router = Router { r in
            for method in ["GET", "POST", "HEAD"] {
                r.add(method, "/health", .pool) { _ in state.answer(nil) }
                r.add(method, "/status/{code}", .pool) { req in state.answer(Int(try req.intParameter("code"))) }
            }
        }
        server = try HTTPServer(configuration: config, router: router)
    }

    deinit { stop() }

    /// The status `/health` answers from now on (200, 503, …).
    public func setStatus(_ code: Int) { state.status.store(code, ordering: .sequentiallyConsistent) }
    /// How long every answer waits before it is sent.
    public func setLatency(ms: Int) { state.latencyMs.store(ms, ordering: .sequentiallyConsistent) }
    /// The body of every answer from now on.
    public func setBody(_ text: String) { state.body.withLock { $0 = text } }

    /// Stops listening (idempotent): checks then see a refused connection.
    public func stop() {
        if stopped.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            server.shutdown()
        }
    }
}

/// What the target answers; shared with the router's handlers.
private final class TargetState: Sendable {
    let status = Atomic<Int>(200)
    let latencyMs = Atomic<Int>(0)
    let body = Mutex<String>("ok: service healthy")
    let count = Atomic<Int>(0)

    func answer(_ code: Int?) -> HTTPResponse {
        count.add(1, ordering: .relaxed)
        let delay = latencyMs.load(ordering: .sequentiallyConsistent)
        if delay > 0 { usleep(UInt32(delay) * 1000) }
        let code = code ?? status.load(ordering: .sequentiallyConsistent)
        var h = HTTPHeaders()
        h.add("Content-Type", "text/plain")
        if (300...399).contains(code) { h.add("Location", "/health") }
        return HTTPResponse(status: code, headers: h, body: Array(body.withLock { $0 }.utf8))
    }
}
