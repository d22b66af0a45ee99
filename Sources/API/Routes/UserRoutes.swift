import Auth
import Core
import HTTP
import Store

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
        return .json(Representation.user(try Self.create(try req.jsonFields(), users: users)), status: 201)
    }

    /// `{"email", "name", "role", "password"}` → a new user (the users page
    /// sends its form through here too).
    static func create(_ body: JSONFields, users: UserService) throws -> UserRecord {
        let email = try body.requiredString("email")
        let role = Role(rawValue: try body.oneOf("role", ["admin", "readonly"]) ?? "readonly")!
        let password = try body.requiredString("password")
        return try users.create(email: email, name: try body.string("name"), role: role, password: password)
    }

    func update(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .adminAccountWrite)
        return .json(Representation.user(try Self.update(id: try req.intParameter("id"), try req.jsonFields(), users: users)))
    }

    /// A partial update (the users page's "Change role" comes through here).
    static func update(id: Int64, _ body: JSONFields, users: UserService) throws -> UserRecord {
        let role = try body.oneOf("role", ["admin", "readonly"]).flatMap(Role.init(rawValue:))
        return try users.update(id: id, email: try body.string("email"), name: try body.string("name"),
                                role: role, password: try body.string("password"))
    }

    func delete(_ req: HTTPRequest) throws -> HTTPResponse {
        _ = try access.check(req, .adminAccountWrite)
        try users.delete(id: try req.intParameter("id"))
        return .noContent()
    }
}
