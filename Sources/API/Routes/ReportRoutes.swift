import Auth
import Core
import HTTP
import Monitoring

/// SLA reports and the ping log (SPEC §13): `GET /api/monitors/{id}/sla`,
/// `GET /api/reports/sla` (JSON, or CSV for `Accept: text/csv`) and
/// `GET /api/monitors/{id}/pings`.
struct ReportRoutes {
    let access: Access
    let monitoring: MonitoringService

    static let csvHeader = "monitor_id,name,uptime,downtime_seconds,maintenance_seconds,incidents,mttr_seconds,checks"

    func register(_ r: inout RouteTable) {
        r.get("/api/monitors/{id}/sla", access.rule(.read, monitorSLA))
        r.get("/api/reports/sla", access.rule(.read, report))
        r.get("/api/monitors/{id}/pings", access.rule(.read, pings))
    }

    func monitorSLA(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let (from, to) = try Self.range(req)
        let f = try monitoring.sla(monitorID: id, from: from, to: to)
        return .json(.object(Self.figures(f, from: from, to: to)))
    }

    func report(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let (from, to) = try Self.range(req)
        let tags = try MonitorRoutes.tagQuery(req)
        let all = try monitoring.slaReport(from: from, to: to, tags: tags)
        if Self.wantsCSV(req) {
            var text = Self.csvHeader + "\r\n"
            for f in all {
                let fields = [String(f.monitorID), Self.csvField(f.name), f.uptime.map { Self.formatted(Self.rounded($0)) } ?? "",
                              String(f.downtimeSeconds), String(f.maintenanceSeconds), String(f.incidents),
                              f.mttrSeconds.map(String.init) ?? "", String(f.checks)]
                text += fields.joined(separator: ",") + "\r\n"
            }
            return .text(200, text, contentType: "text/csv; charset=utf-8")
        }
        let items = all.map { f -> JSON in
            var o = JSONObject([("monitor_id", .int(f.monitorID)), ("name", .string(f.name))])
            for (k, v) in Self.figures(f, from: from, to: to).entries { o[k] = v }
            return .object(o)
        }
        return .json(.object(JSONObject([("from", .time(from)), ("to", .time(to)), ("items", .array(items))])))
    }

    func pings(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let page = try Page(req)
        let rows = try monitoring.pingLog(monitorID: id, beforeID: page.afterID, limit: page.fetchLimit)
        return page.response(rows, id: \.id, render: Self.ping)
    }

    static func ping(_ p: PingLogItem) -> JSON {
        .object(JSONObject([
            ("id", .int(p.id)), ("at", .time(p.atMs / 1000)), ("kind", .string(p.kind.rawValue)), ("exit_code", .from(p.exitCode)),
            ("duration_ms", .from(p.durationMs)), ("source_ip", .from(p.sourceIP)), ("user_agent", .from(p.userAgent)),
            // The kept bytes as text; bytes that are not UTF-8 become U+FFFD.
            ("body", p.body.isEmpty ? .null : .string(String(decoding: p.body, as: UTF8.self))),
        ]))
    }

    static func figures(_ f: SLAFigures, from: Int64, to: Int64) -> JSONObject {
        JSONObject([
            ("from", .time(from)), ("to", .time(to)), ("uptime", f.uptime.map { .double(rounded($0)) } ?? .null),
            ("downtime_seconds", .int(f.downtimeSeconds)), ("maintenance_seconds", .int(f.maintenanceSeconds)),
            ("incidents", .int(Int64(f.incidents))), ("mttr_seconds", .from(f.mttrSeconds)), ("checks", .int(f.checks)),
        ])
    }

    /// Three decimals, as the uptime endpoint answers.
    static func rounded(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }

    static func formatted(_ v: Double) -> String {
        v == v.rounded() ? String(Int64(v)) : "\(v)"
    }

    /// `from` and `to`: required RFC 3339 times, `to` after `from`, at most 400 days apart.
    static func range(_ req: HTTPRequest) throws -> (Int64, Int64) {
        func time(_ name: String) throws -> Int64 {
            guard let text = req.query(name), !text.isEmpty else {
                throw HTTPError(400, "validation_failed", "\(name) is required (an RFC 3339 time such as 2026-11-29T10:00:00Z).",
                                field: name)
            }
            guard let t = Time.parseRFC3339(text) else {
                throw HTTPError(400, "validation_failed", "\(name) must be an RFC 3339 time such as 2026-11-29T10:00:00Z.", field: name)
            }
            return t
        }
        let from = try time("from"), to = try time("to")
        guard to > from else { throw HTTPError(400, "validation_failed", "to must be after from.", field: "to") }
        guard to - from <= MonitoringService.slaMaxSeconds else {
            throw HTTPError(400, "validation_failed", "The range may cover at most 400 days.", field: "to")
        }
        return (from, to)
    }

    static func wantsCSV(_ req: HTTPRequest) -> Bool {
        (req.headers["Accept"] ?? "").lowercased().split(separator: ",").contains {
            $0.split(separator: ";").first.map { $0.trimmingSpaces() } == "text/csv"
        }
    }

    /// RFC 4180: quoted when it holds a comma, a quote or a line break.
    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + Escaping.replacing(s) { $0 == "\"" ? "\"\"" : nil } + "\""
    }
}
