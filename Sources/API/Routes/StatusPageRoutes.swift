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
        r.get("/api/status-pages", guarded(list))
        r.post("/api/status-pages", guarded(create))
        r.get("/api/status-pages/{id}", guarded(show))
        r.patch("/api/status-pages/{id}", guarded(update))
        r.delete("/api/status-pages/{id}", guarded(delete))
    }

    func list(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .read)
        let page = try Page(req)
        let rows = try pages.list(afterID: page.afterID, limit: page.fetchLimit)
        return page.response(rows, id: \.id, render: StatusPageRepresentation.page)
    }

    func show(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .read)
        return .json(StatusPageRepresentation.page(try pages.find(try req.intParameter("id"))))
    }

    func create(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .write)
        let input = try StatusPageInput.parse(try req.jsonFields())
        return .json(StatusPageRepresentation.page(try pages.create(input)), status: 201)
    }

    func update(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .write)
        let id = try req.intParameter("id")
        let current = StatusPageService.input(try pages.find(id))
        let input = try StatusPageInput.parse(try req.jsonFields(), existing: current)
        return .json(StatusPageRepresentation.page(try pages.update(id: id, input)))
    }

    func delete(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .write)
        try pages.delete(id: try req.intParameter("id"))
        return .noContent()
    }
}
