import Core
import HTTP
import Monitoring
import Store

/// `GET /maintenance`: the windows (state and next start), the schedule
/// form (one-off, or recurring with cron, time zone and duration) and
/// delete forms.
/// The form is turned into the API's body and validated by
/// `MaintenanceInput.parse`, so the rules and messages are the API's.
struct MaintenancePages {
    let web: WebLayer
    let monitoring: MonitoringService

    func register(_ r: inout RouteTable) {
        r.get("/maintenance", web.signedInPage(list))
        r.post("/maintenance", web.signedInForm(page: "/maintenance", rule: .write, create))
        r.post("/maintenance/{id}/delete", web.signedInForm(page: "/maintenance", rule: .write, delete))
    }

    /// What was typed, kept when the form comes back with an error.
    struct Typed {
        var title = ""
        var startsAt = ""
        var endsAt = ""
        var monitorIDs: Set<String> = []
        /// As typed: "prod, eu" or "prod eu".
        var tags = ""
        /// Recurrence (SPEC §12): a cron expression makes the window repeat.
        var cron = ""
        var timezone = "UTC"
        var duration = ""
    }

    func list(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let now = Time.now()
        // Default: a one-hour window starting at the next full hour.
        let start = (now / 3600 + 1) * 3600
        let typed = Typed(startsAt: WebTime.localInput(start), endsAt: WebTime.localInput(start + 3600))
        return try page(s, typed: typed, error: nil, flash: Flash.message(req))
    }

    func page(_ s: SignedIn, typed: Typed, error: JSONFieldError?, flash: String?) throws -> HTTPResponse {
        let now = Time.now()
        let (windows, monitors) = (try monitoring.maintenanceWindows(beforeID: nil, limit: 200), try monitoring.allMonitors())
        let names = Dictionary(monitors.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let items: [TemplateValue] = windows.map { w in
            let ids = w.monitorIDs
            let named = ids.map { names[$0] ?? "#\($0)" } + w.tags.map { "tag \($0)" }
            let schedule = MaintenanceSchedule(w)
            let next = schedule.nextStart(after: now)
            let active = schedule.isActive(at: now)
            let state = active ? "active" : (next == nil ? "ended" : "scheduled")
            return [
                "id": .int(w.id), "title": .string(w.title),
                "starts_at": .string(WebTime.text(w.startsAt)), "starts_at_iso": .string(WebTime.iso(w.startsAt)),
                "ends_at": .string(w.endsAt.map(WebTime.text) ?? "no end"), "ends_at_iso": .optional(w.endsAt.map(WebTime.iso)),
                "next_start": .optional(next.map(WebTime.text)), "next_start_iso": .optional(next.map(WebTime.iso)),
                "repeats": .optional(w.recurrence.map { "\($0.cron) (\($0.timezone)), \($0.durationMinutes) min" }),
                "monitors": .string(named.isEmpty ? "All monitors" : named.joined(separator: ", ")),
                "state": .string(state), "active": .bool(active), "created_by": .optional(w.createdBy),
            ]
        }
        var ctx: [String: TemplateValue] = [
            "windows": .list(items),
            "title": .string(typed.title), "starts_at": .string(typed.startsAt), "ends_at": .string(typed.endsAt),
            "tags": .string(typed.tags),
            "cron": .string(typed.cron), "timezone": .string(typed.timezone), "duration": .string(typed.duration),
            "monitors": .list(monitors.map {
                ["id": .int($0.id), "name": .string($0.name), "selected": .bool(typed.monitorIDs.contains(String($0.id)))]
            }),
        ]
        if let error {
            ctx["error"] = .string(error.message)
            ctx["error_field"] = .string(error.field)
            let base = error.field.split(separator: "[").first.map(String.init) ?? error.field
            // `recurrence.cron` → `recurrence_cron`: a dot would be a path in the template.
            ctx["invalid"] = .object([base.replacing(".", with: "_"): .bool(true)])
        }
        return web.adminPage(s, title: "Maintenance", current: "/maintenance", template: "maintenance.html", fields: ctx,
                             flash: flash, status: error == nil ? 200 : 400)
    }

    func create(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let typed = Typed(title: req.form("title") ?? "", startsAt: req.form("starts_at") ?? "", endsAt: req.form("ends_at") ?? "",
                          monitorIDs: Set(req.formValues("monitor_ids")), tags: req.form("tags") ?? "",
                          cron: (req.form("cron") ?? "").trimmingWhitespace(), timezone: (req.form("timezone") ?? "").trimmingWhitespace(),
                          duration: (req.form("duration_minutes") ?? "").trimmingWhitespace())
        // Ids that are not numbers are passed as strings: the validator names them.
        let ids: [JSON] = req.formValues("monitor_ids").map { v in Int64(v).map { .int($0) } ?? .string(v) }
        var body = JSONObject([("title", .string(typed.title)), ("monitor_ids", .array(ids))])
        body["tags"] = .array(typed.tags.split { $0 == "," || $0 == " " }.map { .string(String($0)) })
        if !typed.startsAt.isEmpty { body["starts_at"] = .string(WebTime.fromLocalInput(typed.startsAt)) }
        if !typed.endsAt.isEmpty { body["ends_at"] = .string(WebTime.fromLocalInput(typed.endsAt)) }
        if !typed.cron.isEmpty {
            // A duration that is not a number is passed as a string: the validator names it.
            let minutes: JSON = Int64(typed.duration).map { .int($0) } ?? (typed.duration.isEmpty ? .null : .string(typed.duration))
            body["recurrence"] = .object(JSONObject([
                ("cron", .string(typed.cron)), ("timezone", .string(typed.timezone.isEmpty ? "UTC" : typed.timezone)),
                ("duration_minutes", minutes),
            ]))
        }
        let input: MaintenanceInput
        do {
            input = try MaintenanceInput.parse(try JSONFields(.object(body)))
        } catch {
            return try page(s, typed: typed, error: error, flash: nil)
        }
        do {
            _ = try monitoring.createMaintenance(input, by: s.principal.user.email)
        } catch MonitoringError.notFound(let message) {
            // A monitor deleted while the form was open.
            return try page(s, typed: typed, error: JSONFieldError(field: "monitor_ids", message: message), flash: nil)
        }
        return web.redirect("/maintenance?flash=scheduled")
    }

    func delete(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        try monitoring.deleteMaintenance(id: try req.intParameter("id"))
        return web.redirect("/maintenance?flash=window-deleted")
    }
}
