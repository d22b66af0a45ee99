import Core
import Synchronization

/// What every event loop shares: configuration, routes, the worker pool,
/// metrics and the global connection count. Immutable or atomic, so Sendable.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let router: Router
    let pool: WorkerPool
    let blockingPool: WorkerPool
    let metrics: HTTPMetrics
    let connectionCount = Atomic<Int>(0)

    init(configuration: ServerConfiguration, router: Router, metrics: HTTPMetrics) {
        self.configuration = configuration
        self.router = router
        pool = WorkerPool(threads: configuration.workers, name: "http-worker")
        blockingPool = WorkerPool(threads: configuration.blockingWorkers, name: "http-blocking")
        self.metrics = metrics
    }

    /// Runs a direct handler on the calling thread.
    func run(_ match: RouteMatch, _ request: HTTPRequest) -> HTTPResponse {
        let handler: HTTPHandler
        switch match.handler {
        case .direct(let h), .fast(_, slow: let h): handler = h
        case .deferred: return .error(HTTPError(500, "internal_error", "The server failed to handle this request."))
        }
        do {
            return try handler(request)
        } catch {
            return Self.answer(error, route: match.pattern)
        }
    }

    /// The answer given on the event loop itself: an inline route's, or a
    /// fast handler's when it has one; nil sends the request to a pool.
    func answerOnLoop(_ match: RouteMatch, _ request: HTTPRequest) -> HTTPResponse? {
        if match.execution == .inline { return run(match, request) }
        guard case .fast(let fast, _) = match.handler else { return nil }
        return fast(request)
    }

    /// Thrown `HTTPError`s become their JSON answer; anything else a logged
    /// `500` that reveals nothing of the error to the client.
    static func answer(_ error: any Error, route: String) -> HTTPResponse {
        if let e = error as? HTTPError { return .error(e) }
        Log.shared.error("handler failed", ["route": route, "error": "\(error)"])
        return .error(HTTPError(500, "internal_error", "The server failed to handle this request."))
    }
}
