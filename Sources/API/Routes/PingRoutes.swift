import Core
import HTTP
import Monitoring

/// Heartbeat pings: `GET|POST|HEAD /ping/{key}[/start|/fail|/{exit code}]`,
/// public (the unguessable key is the credential, as in Healthchecks).
struct PingRoutes {
    let monitoring: MonitoringService
    static let maxKeptBody = 10 * 1024

    func register(_ r: inout RouteTable) {
        // On the blocking pool: a ping handler mostly waits for the group
        // commit, and the more pings wait together, the more share one commit.
        for method in ["GET", "POST", "HEAD"] {
            r.add(method, "/ping/{key}", .blocking, guarded(ping))
            r.add(method, "/ping/{key}/{suffix}", .blocking, guarded(ping))
        }
    }

    func ping(_ req: HTTPRequest) throws -> HTTPResponse {
        guard let kind = HeartbeatPing(suffix: req.parameters["suffix"]) else {
            throw HTTPError.notFound("Unknown ping suffix: use /start, /fail or an exit code 0-255.")
        }
        let body = Array(req.body.prefix(Self.maxKeptBody))
        guard try monitoring.ping(key: req.parameters["key"] ?? "", kind, body: body, client: req.clientAddress) else {
            throw HTTPError.notFound("No heartbeat monitor has this ping key.")
        }
        return .text(200, "OK\n")
    }
}
