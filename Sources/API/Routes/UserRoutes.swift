import Auth
import Core
import HTTP

/// `/api/users` (admin, account endpoints).
struct UserRoutes {
    let access: Access
    let users: UserService

    func register(_ r: inout RouteTable) {
        r.get("/api/users", guarded(list))
        r.post("/api/users", guarded(create))
        r.get("/api/users/{id}", guarded(show))
        r.patch("/api/users/{id}", guarded(update))
        r.delete("/api/users/{id}", guarded(delete))
    }

    func list(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .adminAccountRead)
        let page = try Page(req)
        let rows = try users.list(afterID: page.afterID, limit: page.fetchLimit)
        return page.response(rows, id: \.id, render: Representation.user)
    }

    func show(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .adminAccountRead)
        let id = try req.intParameter("id")
        guard let user = try users.find(id: id) else { throw HTTPError.notFound("No user with id \(id).") }
        return .json(Representation.user(user))
    }

    func create(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .adminAccountWrite)
        let body = try req.jsonFields()
        let email = try body.requiredString("email")
        let role = Role(rawValue: try body.oneOf("role", ["admin", "readonly"]) ?? "readonly")!
        let password = try body.requiredString("password")
        let user = try users.create(email: email, name: try body.string("name"), role: role, password: password)
        return .json(Representation.user(user), status: 201)
    }

    func update(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .adminAccountWrite)
        let id = try req.intParameter("id")
        let body = try req.jsonFields()
        let role = try body.oneOf("role", ["admin", "readonly"]).flatMap(Role.init(rawValue:))
        let user = try users.update(id: id, email: try body.string("email"), name: try body.string("name"),
                                    role: role, password: try body.string("password"))
        return .json(Representation.user(user))
    }

    func delete(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .adminAccountWrite)
        try users.delete(id: try req.intParameter("id"))
        return .noContent()
    }
}
