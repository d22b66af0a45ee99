import Auth
import Core
import HTTP
import Monitoring
import Notify
import Synchronization

/// `/healthz`, `/metrics` and `/api/openapi.json`.
struct SystemRoutes {
    let access: Access
    let settings: APISettings
    let metrics: HTTPMetrics
    let monitoring: MonitoringService
    /// Delivery outcomes (nil when the hub runs without alerting).
    let notifications: DeliveryCounters?
    let openAPI: OpenAPIBytes
    let startedAt: Int64

    func register(_ r: inout RouteTable) {
        // The database is open before the server starts, so being able to
        // answer at all means ready; inline, it costs no thread hop.
        var fields: [(String, JSON)] = [("status", "ok"), ("database", .string(settings.databaseEngine.rawValue))]
        if let node = settings.nodeID { fields.append(("node", .string(node))) }
        let status = JSON.object(JSONObject(fields))
        let health = status.serialized()
        r.getInline("/healthz", Access.open { _ in .json(200, health) })
        let doc = openAPI
        r.getInline("/api/openapi.json", Access.open { _ in .json(200, doc.bytes) })
        if settings.metricsPublic {
            r.get("/metrics", Access.open(renderMetrics))
        } else {
            r.get("/metrics", access.rule(.read) { req, _ in try renderMetrics(req) })
        }
    }

    func renderMetrics(_ req: HTTPRequest) throws -> HTTPResponse {
        // `?monitors=false` leaves out the per-monitor families (SPEC §13):
        // at hundreds of thousands of monitors they are most of the scrape's
        // cost, so a frequent job can take the hub's own series alone and a
        // slower one the monitors.
        var perMonitor = true
        if let text = req.query("monitors") {
            switch text {
            case "true", "1": perMonitor = true
            case "false", "0": perMonitor = false
            default: throw HTTPError(400, "validation_failed", "monitors must be true or false.", field: "monitors")
            }
        }
        var out = PrometheusText()
        metrics.render(into: &out)
        out.family("pingtxt_build_info", .gauge, help: "Version of the running hub.")
        out.sample("pingtxt_build_info", ["version": settings.version], 1)
        // SPEC §14: which hub answered, when several share a database.
        out.family("pingtxt_hub_info", .gauge, help: "This hub: its database engine and, with several hubs, its node id.")
        out.sample("pingtxt_hub_info", ["database": settings.databaseEngine.rawValue, "node": settings.nodeID ?? ""], 1)
        out.family("pingtxt_start_time_seconds", .gauge, help: "When the hub started (Unix time).")
        out.sample("pingtxt_start_time_seconds", startedAt)
        monitoring.metrics(into: &out, perMonitor: perMonitor)
        notifications?.render(into: &out)
        ProcessStats.render(into: &out)
        let text = out.text
        return .text(200, text, contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}

/// The OpenAPI document, encoded on its first request instead of at start:
/// its schema tables and bytes are some 250 KB of heap, and the code that
/// builds them was a large part of what start-up ran (issue 20, idle RSS).
/// That first request costs a few milliseconds on its loop; every later
/// one answers the same bytes.
final class OpenAPIBytes: Sendable {
    private let version: String
    private let serverURL: String
    private let built = Mutex<[UInt8]?>(nil)

    init(version: String, serverURL: String) {
        self.version = version
        self.serverURL = serverURL
    }

    var bytes: [UInt8] {
        built.withLock { cached in
            if let cached { return cached }
            let made = OpenAPIDocument.build(version: version, serverURL: serverURL).serialized()
            cached = made
            return made
        }
    }
}
