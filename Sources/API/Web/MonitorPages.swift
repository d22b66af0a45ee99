import Core
import HTTP
import Monitoring
import Notify
import Store

/// The monitors' pages (docs/web.md): the dashboard `/`, the new-monitor
/// form, one monitor with its chart, and its actions. Every write goes
/// through `MonitoringService` and `MonitorValidator`, exactly as the JSON
/// API does, so the pages cannot drift from its rules.
struct MonitorPages {
    let web: WebLayer
    let monitoring: MonitoringService
    /// The escalation policies the form offers.
    let notify: NotifyService

    /// Results drawn in each dashboard sparkline.
    static let sparkResults = 30
    /// Rows in a monitor's recent results table.
    static let recentResults = 20

    func register(_ r: inout RouteTable) {
        r.get("/", web.signedInPage(dashboard))
        r.get("/monitors/new", web.signedInPage(newForm))
        r.post("/monitors", web.signedInForm(page: "/monitors/new", rule: .write, create))
        r.get("/monitors/{id}", web.signedInPage(show))
        // Check now waits for the check (and agents, up to 15 s): the blocking pool.
        r.postBlocking("/monitors/{id}/check", web.signedInForm(page: "/", rule: .write, check))
        r.post("/monitors/{id}/pause", web.signedInForm(page: "/", rule: .write, pause))
        r.post("/monitors/{id}/resume", web.signedInForm(page: "/", rule: .write, resume))
        r.post("/monitors/{id}/delete", web.signedInForm(page: "/", rule: .write, delete))
        r.post("/monitors/{id}/priority", web.signedInForm(page: "/", rule: .write, setPriority))
        r.post("/monitors/{id}/escalation-policy", web.signedInForm(page: "/", rule: .write, setPolicy))
    }

    // MARK: dashboard

    /// One page of monitors worst first with search and filters
    /// (`DashboardQuery`, docs/web.md): its cost follows the page's 100
    /// monitors, not all of them (issue 20).
    func dashboard(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let now = Time.now()
        let q = DashboardQuery(req)
        var page = DashboardPage(monitors: [], next: nil, counts: [:])
        if q.impossible {
            page.counts = try monitoring.dashboardPage(filter: q.filter, after: nil, limit: 0, recent: 0).counts
        } else {
            page = try monitoring.dashboardPage(filter: q.filter, after: q.after, limit: DashboardQuery.pageSize,
                                                recent: Self.sparkResults)
        }
        return web.adminPage(s, title: "Monitors", current: "/", template: "dashboard.html",
                             fields: DashboardView.fields(q, page, tagCounts: try monitoring.tagCounts(), monitoring: monitoring,
                                                          now: now),
                             flash: Flash.message(req))
    }

    static func sample(_ r: CheckResultRecord) -> ChartSample {
        ChartSample(at: r.atMs / 1000, latencyMs: r.latencyMs, down: r.status == "down")
    }

    // MARK: new monitor

    /// The form's fields as typed, kept when the form comes back with an error.
    struct MonitorForm {
        static let fields = ["name", "type", "target", "tags", "interval", "timeout", "retries", "priority", "escalation_policy_id"]
        static let numbers = ["interval", "timeout", "retries", "priority", "escalation_policy_id"]
        static let types = ["http", "tcp", "dns", "tls", "ping", "heartbeat"]
        var values: [String: String] = ["type": "http", "interval": "60", "timeout": "10", "retries": "1"]
        /// The multi-select's choices as sent (SPEC §12 `depends_on`).
        var dependsOn: [String] = []

        init() {}

        init(_ req: HTTPRequest) {
            values = [:]
            for f in Self.fields { values[f] = Substring(req.form(f) ?? "").trimmingSpaces() }
            dependsOn = req.formValues("depends_on")
        }

        /// The API body: numbers that parse become integers; anything else is
        /// passed as typed so the validator's message names the field. Empty
        /// fields are left out (the API's defaults apply).
        var json: JSON {
            var o = JSONObject()
            for f in Self.fields {
                guard let v = values[f], !v.isEmpty else { continue }
                if f == "tags" {
                    // Typed as "prod, eu" or "prod eu".
                    o[f] = .array(v.split { $0 == "," || $0 == " " }.map { .string(String($0)) })
                } else if Self.numbers.contains(f), let n = Int64(v) {
                    o[f] = .int(n)
                } else {
                    o[f] = .string(v)
                }
            }
            if !dependsOn.isEmpty { o["depends_on"] = .array(dependsOn.map { v in Int64(v).map { .int($0) } ?? .string(v) }) }
            return .object(o)
        }

        func context(error: JSONFieldError?, policies: [EscalationPolicyRecord],
                     monitors: [MonitorRecord] = []) -> [String: TemplateValue] {
            var ctx: [String: TemplateValue] = [:]
            ctx["monitors"] = .list(monitors.map { m in
                ["id": .int(m.id), "name": .string(m.name), "selected": .bool(dependsOn.contains(String(m.id)))]
            })
            for f in Self.fields { ctx[f] = .string(values[f] ?? "") }
            ctx["types"] = .list(Self.types.map { ["value": .string($0), "selected": .bool($0 == values["type"])] })
            ctx["priorities"] = MonitorPages.priorityOptions(selected: values["priority"] ?? "")
            ctx["policies"] = MonitorPages.policyOptions(policies, selected: values["escalation_policy_id"].flatMap { Int64($0) })
            if let error {
                ctx["error"] = .string(error.message)
                ctx["error_field"] = .string(error.field)
                // The field itself is marked too, for screen readers.
                ctx["invalid"] = .object([error.field.split(whereSeparator: { $0 == "." || $0 == "[" }).first.map(String.init) ?? error.field: .bool(true)])
            }
            return ctx
        }
    }

    func newForm(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        try formPage(s, MonitorForm(), error: nil)
    }

    func formPage(_ s: SignedIn, _ form: MonitorForm, error: JSONFieldError?) throws -> HTTPResponse {
        web.adminPage(s, title: "New monitor", current: "/", template: "monitor_new.html",
                      fields: form.context(error: error, policies: try notify.policies(), monitors: try monitoring.allMonitors()),
                      status: error == nil ? 200 : 400)
    }

    /// The escalation policy select: "None" first, then every policy.
    static func policyOptions(_ policies: [EscalationPolicyRecord], selected: Int64?) -> TemplateValue {
        .list([["id": .string(""), "name": .string("None"), "selected": .bool(selected == nil)]]
              + policies.map { ["id": .int($0.id), "name": .string($0.name), "selected": .bool($0.id == selected)] })
    }

    func create(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let form = MonitorForm(req)
        let config: MonitorConfig
        do {
            config = try MonitorValidator.create(try JSONFields(form.json))
        } catch {
            return try formPage(s, form, error: error)
        }
        let record: MonitorRecord
        do {
            record = try monitoring.create(config)
        } catch let error as JSONFieldError {
            // A policy or parent deleted while the form was open, or a cycle.
            return try formPage(s, form, error: error)
        }
        return web.redirect("/monitors/\(record.id)?flash=created")
    }

    // MARK: one monitor

    func show(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let now = Time.now()
        let (record, day, recent, incidents) = try monitoring.monitorHistory(id, fromMs: (now - 86_400) * 1000, toMs: (now + 1) * 1000,
                                                                             recent: Self.recentResults, incidents: 20)
        // Two and a half intervals: one late or missed check does not break
        // the line, a stopped hub or a pause does. (Heartbeat results carry
        // no latency, so their chart shows only down periods.)
        let gap = max(60, record.interval * 5 / 2)
        let samples = day.map(Self.sample)
        let chart = Charts.history(samples, from: now - 86_400, to: now, gapSeconds: gap)
        let results: [TemplateValue] = recent.map { r in
            [
                "at": .string(WebTime.text(r.atMs / 1000)), "at_iso": .string(WebTime.iso(r.atMs / 1000)),
                "location": .string(r.location), "status": .string(r.status),
                "latency": .optional(r.latencyMs.map { "\($0) ms" }), "status_code": .optional(r.statusCode.map { String($0) }),
                "error": .optional(r.error), "in_maintenance": .bool(r.inMaintenance),
            ]
        }
        let names = try monitoring.monitorNames()
        let incidentItems: [TemplateValue] = incidents.map { IncidentPages.item($0, monitorName: nil, names: names) }
        let parents: [TemplateValue] = try monitoring.dependencyMap()[id, default: []].map { p in
            ["id": .int(p), "name": .string(names[p] ?? "monitor \(p)")]
        }
        let context: [String: TemplateValue] = [
            "id": .int(record.id), "name": .string(record.name), "type": .string(record.type), "target": .optional(record.target),
            "ping_url": .optional(monitoring.pingURL(record)),
            "interval": .int(record.interval), "timeout": .int(record.timeout), "retries": .int(record.retries),
            "status": .string(record.status), "status_since": .string(WebTime.text(record.statusSince)),
            "paused": .bool(record.paused), "in_maintenance": .bool(monitoring.isInMaintenance(id, at: now)),
            "last_check": .string(WebTime.text(record.lastAt)), "last_error": .optional(record.lastError),
            "chart": .string(chart), "chart_summary": .string(Charts.historySummary(samples, from: now - 86_400, to: now)),
            "results": .list(results), "incidents": .list(incidentItems), "depends_on": .list(parents),
            "priority": .string(record.priority.map { String($0) } ?? "default"),
            "priorities": Self.priorityOptions(selected: record.priority.map { String($0) } ?? ""),
            "policies": Self.policyOptions(try notify.policies(), selected: record.escalationPolicyID),
            "policy_name": .optional(record.escalationPolicyID.flatMap { try? notify.policy($0).name }),
        ]
        return web.adminPage(s, title: record.name, current: "/", template: "monitor.html", fields: context, flash: Flash.message(req))
    }

    /// The choices of a priority select: the defaults (empty, sent as
    /// null) or 0–10 (SPEC §10).
    static func priorityOptions(selected: String) -> TemplateValue {
        let options: [TemplateValue] = [["value": "", "label": "default (down 8, degraded 6, expiry 5, up 4)",
                                         "selected": .bool(selected.isEmpty)]]
            + (0...10).map { p in ["value": .string(String(p)), "label": .string(String(p)), "selected": .bool(selected == String(p))] }
        return .list(options)
    }

    /// The monitor's alert priority from its page: a PATCH of `priority`
    /// through the API's validator (empty = null, the defaults).
    func setPriority(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let text = Substring(req.form("priority") ?? "").trimmingSpaces()
        let value: JSON = text.isEmpty ? .null : Int64(text).map { .int($0) } ?? .string(text)
        do {
            let config = try MonitorValidator.patch(try monitoring.config(id), with: try JSONFields(["priority": value]))
            _ = try monitoring.update(id: id, config)
        } catch let e as JSONFieldError {
            throw HTTPError(400, "validation_failed", e.message, field: e.field)
        }
        return web.redirect("/monitors/\(id)?flash=priority-saved")
    }

    func check(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        _ = try monitoring.checkNow(id: id)
        return web.redirect("/monitors/\(id)?flash=checked")
    }

    /// Sets or clears the monitor's escalation policy (the API's PATCH of
    /// `escalation_policy_id`, validated the same way).
    func setPolicy(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let chosen = s.form.trimmed("escalation_policy_id")
        let value: JSON = chosen.isEmpty ? .null : (Int64(chosen).map { .int($0) } ?? .string(chosen))
        let config = try MonitorValidator.patch(try monitoring.config(id), with: try JSONFields(["escalation_policy_id": value]))
        _ = try monitoring.update(id: id, config)
        return web.redirect("/monitors/\(id)?flash=policy-set")
    }

    func pause(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        _ = try monitoring.pause(id: id)
        return web.redirect("/monitors/\(id)?flash=paused")
    }

    func resume(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        _ = try monitoring.resume(id: id)
        return web.redirect("/monitors/\(id)?flash=resumed")
    }

    /// Deleting a monitor takes its checks and incidents with it, so the form
    /// carries a required checkbox: the browser asks for it without any
    /// script, and a POST without it (an old form, a stray click through a
    /// tool) deletes nothing.
    func delete(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        guard req.form("confirm") == "yes" else { return web.redirect("/monitors/\(id)?flash=confirm-delete") }
        try monitoring.delete(id: id)
        return web.redirect("/?flash=deleted")
    }
}
