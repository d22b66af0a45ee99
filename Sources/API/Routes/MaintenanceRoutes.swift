import Auth
import Core
import HTTP
import Monitoring
import Store

/// `/api/maintenance` (SPEC §5).
struct MaintenanceRoutes {
    let access: Access
    let monitoring: MonitoringService

    func register(_ r: inout RouteTable) {
        r.get("/api/maintenance", access.rule(.read, list))
        r.post("/api/maintenance", access.rule(.write, create))
        r.get("/api/maintenance/{id}", access.rule(.read, show))
        r.patch("/api/maintenance/{id}", access.rule(.write, update))
        r.delete("/api/maintenance/{id}", access.rule(.write, delete))
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let page = try Page(req)
        let now = Time.now()
        let rows = try monitoring.maintenanceWindows(beforeID: page.afterID, limit: page.fetchLimit)
        return page.response(rows, id: \.id) { MonitoringRepresentation.maintenance($0, now: now) }
    }

    func find(_ id: Int64) throws -> MaintenanceRecord { try monitoring.maintenanceWindow(id) }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(MonitoringRepresentation.maintenance(try find(try req.intParameter("id")), now: Time.now()))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let input = try MaintenanceInput.parse(try req.jsonFields())
        let w = try monitoring.createMaintenance(input, by: p.user.email)
        return .json(MonitoringRepresentation.maintenance(w, now: Time.now()), status: 201)
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let input = try MaintenanceInput.parse(try req.jsonFields(), existing: try find(id))
        return .json(MonitoringRepresentation.maintenance(try monitoring.updateMaintenance(id: id, input), now: Time.now()))
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try monitoring.deleteMaintenance(id: try req.intParameter("id"))
        return .noContent()
    }
}
