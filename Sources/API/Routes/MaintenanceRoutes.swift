import Auth
import Core
import HTTP
import Monitoring
import Store

/// `/api/maintenance` (SPEC §5).
struct MaintenanceRoutes {
    let access: Access
    let monitoring: MonitoringService
    var keys: ObjectKeyService { ObjectKeyService(database: monitoring.database) }

    func represent(_ w: MaintenanceRecord, now: Int64) throws -> JSON {
        KeyedJSON.with(try keys.key(.maintenance, id: w.id), MonitoringRepresentation.maintenance(w, now: now))
    }

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
        let keyed = try keys.keys(.maintenance)
        return page.response(rows, id: \.id) { KeyedJSON.with(keyed[$0.id], MonitoringRepresentation.maintenance($0, now: now)) }
    }

    func find(_ id: Int64) throws -> MaintenanceRecord { try monitoring.maintenanceWindow(id) }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(try represent(try find(try req.intParameter("id")), now: Time.now()))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let body = try req.jsonFields()
        let input = try MaintenanceInput.parse(body)
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.maintenance, key, for: nil)
        let w = try monitoring.createMaintenance(input, by: p.user.email)
        try keys.apply(.maintenance, id: w.id, key)
        return .json(try represent(w, now: Time.now()), status: 201)
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let body = try req.jsonFields()
        let input = try MaintenanceInput.parse(body, existing: try find(id))
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.maintenance, key, for: id)
        let w = try monitoring.updateMaintenance(id: id, input)
        try keys.apply(.maintenance, id: id, key)
        return .json(try represent(w, now: Time.now()))
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try monitoring.deleteMaintenance(id: try req.intParameter("id"))
        return .noContent()
    }
}
