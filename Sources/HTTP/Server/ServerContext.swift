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

    /// Runs a handler; thrown `HTTPError`s become their JSON answer, anything
    /// else a logged `500` that reveals nothing of the error to the client.
    func run(_ match: RouteMatch, _ request: HTTPRequest) -> HTTPResponse {
        var request = request
        request.parameters = match.parameters
        request.route = match.pattern
        do {
            return try match.handler(request)
        } catch let error as HTTPError {
            return .error(error)
        } catch {
            Log.shared.error("handler failed", ["route": match.pattern, "error": "\(error)"])
            return .error(HTTPError(500, "internal_error", "The server failed to handle this request."))
        }
    }
}
