import Core

/// The public page's HTML: `status_page.html` inside `status_layout.html`.
/// Every value goes through the template's escaping; only the SVG the hub
/// drew itself is inserted raw.
enum StatusPageHTML {
    static func render(_ v: StatusPageView) -> String {
        let monitors: [TemplateValue] = v.monitors.map { m in
            [
                "name": .string(m.name), "status": .string(m.status), "status_text": .string(statusText(m.status)),
                "bars": .string(UptimeBars.svg(m.days, overall: m.uptime)),
                "uptime_text": .string(m.uptime.map { UptimeBars.percent($0) + " uptime" } ?? "No data"),
            ]
        }
        let incidents: [TemplateValue] = v.incidents.map { i in
            [
                "monitor_name": .string(i.monitorName), "kind_text": .string(kindText(i.kind)),
                "since": .string(Time.rfc3339(i.since)), "since_text": .string(readable(i.since)),
                "cause": .string(i.cause),
            ]
        }
        let maintenance: [TemplateValue] = v.maintenance.map { m in
            [
                "title": .string(m.title), "start": .string(Time.rfc3339(m.start)), "start_text": .string(readable(m.start)),
                "end": .string(Time.rfc3339(m.end)), "end_text": .string(readable(m.end)), "active": .bool(m.active),
                "recurring": .bool(m.recurring), "monitors": .string(m.monitorNames.joined(separator: ", ")),
            ]
        }
        let body = TemplateLibrary.render("status_page.html", [
            "title": .string(v.page.title), "description": .string(v.page.description), "slug": .string(v.page.slug),
            "overall": .string(v.overall.rawValue), "overall_text": .string(v.overall.text),
            "monitors": .list(monitors), "incidents": .list(incidents), "has_incidents": .bool(!incidents.isEmpty),
            "maintenance": .list(maintenance), "has_maintenance": .bool(!maintenance.isEmpty),
            "generated_text": .string(readable(v.generatedAt)),
        ])
        return TemplateLibrary.render("status_layout.html", ["title": .string(v.page.title), "body": .string(body)])
    }

    static func statusText(_ status: String) -> String {
        switch status {
        case "up": "Operational"
        case "down": "Down"
        case "degraded": "Degraded"
        case "maintenance": "Maintenance"
        case "paused": "Paused"
        default: "Pending"
        }
    }

    static func kindText(_ kind: String) -> String {
        switch kind {
        case "down": "Down"
        case "degraded": "Degraded performance"
        case "expiry": "Certificate expiring"
        default: kind
        }
    }

    /// `2026-11-30 14:05`: the RFC 3339 time, made easier to read.
    static func readable(_ t: Int64) -> String {
        let s = Time.rfc3339(t)
        return String(s.prefix(10)) + " " + String(s.dropFirst(11).prefix(5))
    }
}
