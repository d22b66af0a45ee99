import Monitoring
import Auth
import Core
import HTTP
import Store

/// `/api/status-pages` (SPEC §7): the pages' configuration. The public
/// pages themselves are `PublicStatusRoutes`.
struct StatusPageRoutes {
    let access: Access
    let pages: StatusPageService
    var keys: ObjectKeyService { ObjectKeyService(database: pages.monitoring.database) }

    func keyed(_ p: StatusPageRecord) throws -> JSON {
        KeyedJSON.with(try keys.key(.statusPage, id: p.id), StatusPageRepresentation.page(p))
    }

    func register(_ r: inout RouteTable) {
        r.get("/api/status-pages", access.rule(.read, list))
        r.post("/api/status-pages", access.rule(.write, create))
        r.get("/api/status-pages/{id}", access.rule(.read, show))
        r.patch("/api/status-pages/{id}", access.rule(.write, update))
        r.delete("/api/status-pages/{id}", access.rule(.write, delete))
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let page = try Page(req)
        let rows = try pages.list(afterID: page.afterID, limit: page.fetchLimit)
        let keyed = try keys.keys(.statusPage)
        return page.response(rows, id: \.id) { KeyedJSON.with(keyed[$0.id], StatusPageRepresentation.page($0)) }
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(try keyed(try pages.find(try req.intParameter("id"))))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let body = try req.jsonFields()
        let input = try StatusPageInput.parse(body)
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.statusPage, key, for: nil)
        let created = try pages.create(input)
        try keys.apply(.statusPage, id: created.id, key)
        return .json(try keyed(created), status: 201)
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let current = StatusPageService.input(try pages.find(id))
        let body = try req.jsonFields()
        let input = try StatusPageInput.parse(body, existing: current)
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.statusPage, key, for: id)
        let updated = try pages.update(id: id, input)
        try keys.apply(.statusPage, id: id, key)
        return .json(try keyed(updated))
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try pages.delete(id: try req.intParameter("id"))
        return .noContent()
    }
}
