import Auth
import Core
import HTTP
import Monitoring
import Notify
import Store

/// `/api/incidents` (SPEC §5), each with its `escalation` (SPEC §10).
struct IncidentRoutes {
    let access: Access
    let monitoring: MonitoringService
    let notify: NotifyService

    func register(_ r: inout RouteTable) {
        r.get("/api/incidents", access.rule(.read, list))
        r.get("/api/incidents/{id}", access.rule(.read, show))
        r.post("/api/incidents/{id}/acknowledge", access.rule(.write, acknowledge))
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let page = try Page(req)
        let status = req.query("status")
        if let status, status != "open" && status != "closed" {
            throw HTTPError(400, "validation_failed", "status must be open or closed.", field: "status")
        }
        var monitorID: Int64?
        if let text = req.query("monitor_id") {
            guard let id = Int64(text), id > 0 else {
                throw HTTPError(400, "validation_failed", "monitor_id must be a monitor id.", field: "monitor_id")
            }
            monitorID = id
        }
        let rows = try monitoring.incidents(status: status, monitorID: monitorID, beforeID: page.afterID, limit: page.fetchLimit)
        return try page.response(rows, id: \.id) { items in
            let escalation = try notify.escalationStatus(of: items)
            return items.map { MonitoringRepresentation.incident($0, timeline: nil, escalation: escalation[$0.id]) }
        }
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        return try render(id)
    }

    func render(_ id: Int64) throws -> HTTPResponse {
        let (incident, timeline) = try monitoring.incident(id)
        let escalation = try notify.escalationStatus(of: [incident])[incident.id]
        return .json(MonitoringRepresentation.incident(incident, timeline: timeline, escalation: escalation))
    }

    func acknowledge(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        _ = try monitoring.acknowledge(incidentID: id, by: p.user.email, userID: p.user.id)
        return try render(id)
    }
}
