import Core
import HTTP
import Monitoring

/// Heartbeat pings: `GET|POST|HEAD /ping/{key}[/start|/fail|/{exit code}]`,
/// public (the unguessable key is the credential, as in Healthchecks).
struct PingRoutes {
    let monitoring: MonitoringService
    static let maxKeptBody = 10 * 1024
    /// The User-Agent kept with a ping, in bytes (cut at a character boundary).
    static let maxKeptUserAgent = 512
    /// Built once: the answer is made on the writer's thread and freed on
    /// the event loop's, and every allocation that crosses threads that way
    /// takes the other thread's malloc arena lock (perf: the batch writer's
    /// most frequent reason to sleep under a flood of pings).
    static let ok = HTTPResponse.text(200, "OK\n")

    func register(_ r: inout RouteTable) {
        // Deferred: a ping waits only for the group commit, and holds no
        // thread meanwhile, so every ping in flight can share one commit.
        for method in ["GET", "POST", "HEAD"] {
            r.addDeferred(method, "/ping/{key}", access: "public", ping)
            r.addDeferred(method, "/ping/{key}/{suffix}", access: "public", ping)
        }
    }

    func ping(_ req: HTTPRequest, respond: @escaping HTTPRespond) {
        guard let kind = HeartbeatPing(suffix: req.parameters["suffix"]) else {
            return respond(.error(HTTPError.notFound("Unknown ping suffix: use /start, /fail or an exit code 0-255.")))
        }
        let body = Array(req.body.prefix(Self.maxKeptBody))
        let agent = req.headers["User-Agent"].map { TextLimit.cut($0, to: Self.maxKeptUserAgent, in: .utf8Bytes) }
        monitoring.ping(key: req.parameters["key"] ?? "", kind, body: body, client: req.clientAddress, userAgent: agent) { result in
            switch result {
            case .success(true): respond(Self.ok)
            case .success(false): respond(.error(HTTPError.notFound("No heartbeat monitor has this ping key.")))
            case .failure(let error): respond(.error(APIErrors.http(error)))
            }
        }
    }
}
