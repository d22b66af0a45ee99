import Core
import HTTP
import Monitoring
import Notify
import Store

/// `/escalation`: the escalation policies (SPEC §10) with their steps and
/// the monitors using them, the new-policy form, an edit page per policy,
/// and delete. The form becomes the API's JSON body and goes through
/// `EscalationPolicyValidator` and `NotifyService`, so the rules and
/// messages (and the 409 for a policy in use) are the API's.
struct EscalationPages {
    let web: WebLayer
    let notify: NotifyService
    let monitoring: MonitoringService

    static let flashes = [
        "created": "Escalation policy created.",
        "saved": "Escalation policy saved.",
        "deleted": "Escalation policy deleted.",
    ]
    static let maxSteps = EscalationPolicyValidator.steps.upperBound

    func register(_ r: inout RouteTable) {
        r.get("/escalation", web.signedInPage(list))
        r.post("/escalation", web.signedInForm(page: "/escalation", rule: .write, create))
        r.get("/escalation/{id}", web.signedInPage(edit))
        r.post("/escalation/{id}", web.signedInForm(page: "/escalation", rule: .write, update))
        r.post("/escalation/{id}/delete", web.signedInForm(page: "/escalation", rule: .write, delete))
    }

    /// The form as typed: name, repeat, and per step row the chosen channel
    /// ids and the wait, kept when the form comes back with an error.
    struct Typed {
        var name = ""
        var repeatText = "0"
        var rows: [(channels: Set<String>, delay: String)] = []

        init() {}

        init(_ p: EscalationPolicyRecord) {
            name = p.name
            repeatText = String(p.repeatCount)
            rows = p.steps.map { (Set($0.channelIDs.map(String.init)), String($0.delayMinutes)) }
        }

        init(_ form: WebForm) {
            name = form.trimmed("name")
            repeatText = form.trimmed("repeat")
            for n in 1...EscalationPages.maxSteps {
                rows.append((Set(form.all("step\(n).channel_ids")), form.trimmed("step\(n).delay_minutes")))
            }
        }

        /// The API body: rows without a channel are left out; numbers that
        /// do not parse are passed as typed so the validator names the field.
        var json: JSON {
            func number(_ s: String) -> JSON { Int64(s).map { .int($0) } ?? (s.isEmpty ? .null : .string(s)) }
            let steps: [JSON] = rows.filter { !$0.channels.isEmpty }.map { row in
                .object(JSONObject([("channel_ids", .array(row.channels.sorted().map { Int64($0).map { .int($0) } ?? .string($0) })),
                                    ("delay_minutes", number(row.delay))]))
            }
            return .object(JSONObject([("name", .string(name)), ("repeat", number(repeatText)), ("steps", .array(steps))]))
        }
    }

    func list(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        try page(s, editing: nil, typed: Typed(), error: nil, flash: WebFormat.flash(req, Self.flashes))
    }

    func edit(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let p = try notify.policy(try req.intParameter("id"))
        return try page(s, editing: p.id, typed: Typed(p), error: nil, flash: nil)
    }

    func create(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let typed = Typed(s.form)
        do {
            _ = try notify.createPolicy(try EscalationPolicyValidator.create(try JSONFields(typed.json)))
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try page(s, editing: nil, typed: typed, error: (e.field ?? "", e.message, e.status), flash: nil)
        }
        return web.redirect("/escalation?flash=created")
    }

    func update(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let existing = try notify.policy(try req.intParameter("id"))
        let typed = Typed(s.form)
        do {
            _ = try notify.updatePolicy(try EscalationPolicyValidator.patch(existing, with: try JSONFields(typed.json)))
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try page(s, editing: existing.id, typed: typed, error: (e.field ?? "", e.message, e.status), flash: nil)
        }
        return web.redirect("/escalation?flash=saved")
    }

    func delete(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        do {
            try notify.deletePolicy(try req.intParameter("id"))
        } catch {
            // In use by a monitor: the list again, saying which.
            guard let e = WebLayer.formError(error) else { throw error }
            return try page(s, editing: nil, typed: Typed(), error: nil, flash: nil, failure: (e.message, e.status))
        }
        return web.redirect("/escalation?flash=deleted")
    }

    func page(_ s: SignedIn, editing: Int64?, typed: Typed, error: (field: String, message: String, status: Int)?, flash: String?,
              failure: (message: String, status: Int)? = nil) throws -> HTTPResponse {
        let channels = try notify.all()
        let names = Dictionary(channels.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let monitors = try monitoring.allMonitors()
        let policies: [TemplateValue] = try notify.policies().map { p in
            let users = monitors.filter { $0.escalationPolicyID == p.id }.map(\.name)
            return [
                "id": .int(p.id), "name": .string(p.name), "repeat": .int(p.repeatCount),
                "monitors": .string(users.joined(separator: ", ")), "has_monitors": .bool(!users.isEmpty),
                "steps": .list(p.steps.map { step in
                    ["channels": .string(step.channelIDs.map { names[$0] ?? "#\($0)" }.joined(separator: ", ")),
                     "delay": .int(step.delayMinutes)]
                }),
            ]
        }
        // The invalid row, from the validator's `steps[i]…` (i counts the rows sent, which are the filled ones).
        let filled = typed.rows.indices.filter { !typed.rows[$0].channels.isEmpty }
        var invalidRow: Int?
        if let field = error?.field, field.hasPrefix("steps["), let close = field.firstIndex(of: "]"),
           let i = Int(field[field.index(field.startIndex, offsetBy: 6)..<close]), i < filled.count {
            invalidRow = filled[i]
        }
        let shown = min(Self.maxSteps, max(3, (typed.rows.lastIndex { !$0.channels.isEmpty }.map { $0 + 1 } ?? 0) + 1))
        let rows: [TemplateValue] = (0..<shown).map { i in
            let row = i < typed.rows.count ? typed.rows[i] : (channels: [], delay: "")
            return [
                "number": .int(i + 1), "delay": .string(row.delay.isEmpty ? "10" : row.delay), "invalid": .bool(invalidRow == i),
                "channels": .list(channels.map { ["id": .int($0.id), "name": .string($0.name), "selected": .bool(row.channels.contains(String($0.id)))] }),
            ]
        }
        var fields: [String: TemplateValue] = [
            "policies": .list(policies), "editing": .bool(editing != nil),
            "action": .string(editing.map { "/escalation/\($0)" } ?? "/escalation"),
            "has_channels": .bool(!channels.isEmpty),
            "name": .string(typed.name), "repeat": .string(typed.repeatText), "rows": .list(rows),
        ]
        if let error {
            fields["error"] = .string(error.message)
            fields["error_field"] = .string(error.field)
            fields["invalid"] = .object([error.field.split(separator: "[").first.map(String.init) ?? error.field: .bool(true)])
        }
        let status = error?.status ?? failure?.status ?? 200
        return web.adminPage(s, title: editing == nil ? "Escalation" : "Edit escalation policy", current: "/escalation",
                             template: "escalation.html", fields: fields, flash: flash, error: failure?.message, status: status)
    }
}
