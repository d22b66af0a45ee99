import Monitoring
import Core
import Store

/// JSON of status pages: the admin object of `/api/status-pages` and the
/// public document of `/status/{slug}.json`.
enum StatusPageRepresentation {
    static func page(_ p: StatusPageRecord) -> JSON {
        .object(JSONObject([
            ("id", .int(p.id)), ("slug", .string(p.slug)), ("title", .string(p.title)),
            ("description", .string(p.description)),
            ("monitor_ids", .array(p.monitorIDs.map { .int($0) })),
            ("tags", .array(p.tags.map { .string($0) })),
            ("created_at", .time(p.createdAt)), ("updated_at", .time(p.updatedAt)),
        ]))
    }

    /// Only what the public page shows: no ids of the page, no targets.
    static func publicView(_ v: StatusPageView) -> JSON {
        let monitors: [JSON] = v.monitors.map { m in
            .object(JSONObject([
                ("id", .int(m.id)), ("name", .string(m.name)), ("status", .string(m.status)),
                ("status_since", .time(m.since)),
                ("uptime_90d", m.uptime.map { .double(rounded($0)) } ?? .null),
                ("days", .array(m.days.map { d in
                    .object(JSONObject([
                        ("date", .string(d.date)), ("status", .string(d.level.rawValue)),
                        ("uptime", d.uptime.map { .double(rounded($0)) } ?? .null),
                    ]))
                })),
            ]))
        }
        let incidents: [JSON] = v.incidents.map { i in
            .object(JSONObject([
                ("monitor_id", .int(i.monitorID)), ("monitor_name", .string(i.monitorName)), ("kind", .string(i.kind)),
                ("since", .time(i.since)), ("cause", .string(i.cause)),
            ]))
        }
        let maintenance: [JSON] = v.maintenance.map { m in
            .object(JSONObject([
                ("title", .string(m.title)), ("starts_at", .time(m.start)), ("ends_at", .time(m.end)),
                ("active", .bool(m.active)), ("recurring", .bool(m.recurring)),
                ("monitors", .array(m.monitorNames.map { .string($0) })),
            ]))
        }
        return .object(JSONObject([
            ("slug", .string(v.page.slug)), ("title", .string(v.page.title)), ("description", .string(v.page.description)),
            ("status", .string(v.overall.rawValue)), ("status_text", .string(v.overall.text)),
            ("monitors", .array(monitors)), ("incidents", .array(incidents)), ("maintenance", .array(maintenance)),
            ("generated_at", .time(v.generatedAt)),
        ]))
    }

    /// Percentages to 1/1000 of a percent: enough, and stable in JSON.
    static func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
}
