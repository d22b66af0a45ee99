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
        return page.response(rows, id: \.id, render: StatusPageRepresentation.page)
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(StatusPageRepresentation.page(try pages.find(try req.intParameter("id"))))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let input = try StatusPageInput.parse(try req.jsonFields())
        return .json(StatusPageRepresentation.page(try pages.create(input)), status: 201)
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let current = StatusPageService.input(try pages.find(id))
        let input = try StatusPageInput.parse(try req.jsonFields(), existing: current)
        return .json(StatusPageRepresentation.page(try pages.update(id: id, input)))
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try pages.delete(id: try req.intParameter("id"))
        return .noContent()
    }
}
