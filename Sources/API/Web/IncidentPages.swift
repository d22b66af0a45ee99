import Core
import HTTP
import Monitoring
import Notify
import Store

/// `GET /incidents` (open first, then recently closed, each open one with
/// its escalation state) and the "Acknowledge" form, through the same
/// `MonitoringService.acknowledge` as `POST /api/incidents/{id}/acknowledge`.
struct IncidentPages {
    let web: WebLayer
    let monitoring: MonitoringService
    let notify: NotifyService

    /// Closed incidents shown under the open ones.
    static let recentClosed = 50

    func register(_ r: inout RouteTable) {
        r.get("/incidents", web.signedInPage(list))
        r.post("/incidents/{id}/acknowledge", web.signedInForm(page: "/incidents", rule: .write, acknowledge))
    }

    func list(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let (open, closed, names) = (try monitoring.incidents(status: "open", monitorID: nil, beforeID: nil, limit: 500),
                                     try monitoring.incidents(status: "closed", monitorID: nil, beforeID: nil, limit: Self.recentClosed),
                                     try monitoring.monitorNames())
        let escalation = try notify.escalationStatus(of: open)
        return web.adminPage(s, title: "Incidents", current: "/incidents", template: "incidents.html", fields: [
            "open": .list(open.map { Self.item($0, monitorName: names[$0.monitorID], escalation: escalation[$0.id], names: names) }),
            "closed": .list(closed.map { Self.item($0, monitorName: names[$0.monitorID], names: names) }),
        ], flash: Flash.message(req))
    }

    /// One incident as the templates show it (also on the monitor page).
    /// `names`: monitor names by id, for the parent that suppressed it.
    static func item(_ i: IncidentRecord, monitorName: String?, escalation: EscalationPlan.Status? = nil,
                     names: [Int64: String] = [:]) -> TemplateValue {
        [
            // SPEC §12: "suppressed by <parent>", or the alert still held back.
            "suppressed_by": .optional(i.suppressedBy.map { names[$0] ?? "monitor \($0)" }),
            "suppressed_by_id": .optional(i.suppressedBy.map { String($0) }),
            "held": .bool(i.heldUntil != nil && i.suppressedBy == nil),
            "escalation": .optional(escalation.map(Self.escalationText)),
            "id": .int(i.id), "monitor_id": .int(i.monitorID), "monitor_name": .optional(monitorName),
            "kind": .string(i.kind), "status": .string(i.status), "cause": .string(i.cause),
            "open": .bool(i.status == "open"),
            "opened_at": .string(WebTime.text(i.openedAt)), "opened_at_iso": .string(WebTime.iso(i.openedAt)),
            "closed_at": .optional(i.closedAt.map(WebTime.text)),
            "acknowledged": .bool(i.acknowledgedAt != nil), "acknowledged_by": .optional(i.acknowledgedBy),
            "acknowledged_at": .optional(i.acknowledgedAt.map(WebTime.text)),
            // The form only where it does something: open and not yet acknowledged.
            "can_acknowledge": .bool(i.status == "open" && i.acknowledgedAt == nil),
        ]
    }

    /// "step 2 sent, step 3 due 10:32 UTC"; before step 1 (held back by
    /// maintenance) "step 1 waits for the maintenance window to end".
    static func escalationText(_ e: EscalationPlan.Status) -> String {
        guard let step = e.step else { return "step 1 waits for the maintenance window to end" }
        return "step \(step) sent, next step due \(WebTime.text(e.nextAt))"
    }

    func acknowledge(_ req: HTTPRequest, _ s: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        _ = try monitoring.acknowledge(incidentID: id, by: s.principal.user.email, userID: s.principal.user.id)
        return web.redirect("/incidents?flash=acknowledged")
    }
}
