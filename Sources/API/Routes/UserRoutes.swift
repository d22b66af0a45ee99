import Auth
import Core
import HTTP
import Store

/// `/api/users` (admin, account endpoints).
struct UserRoutes {
    let access: Access
    let users: UserService
    let ssoUsers: SSOUserService
    /// `"invite": true` and `"invited"` (SPEC §15).
    let invitations: Invitations

    func register(_ r: inout RouteTable) {
        r.get("/api/users", access.rule(.adminAccountRead, list))
        r.post("/api/users", access.rule(.adminAccountWrite, create))
        r.get("/api/users/{id}", access.rule(.adminAccountRead, show))
        r.patch("/api/users/{id}", access.rule(.adminAccountWrite, update))
        r.delete("/api/users/{id}", access.rule(.adminAccountWrite, delete))
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let page = try Page(req)
        let rows = try users.list(afterID: page.afterID, limit: page.fetchLimit)
        return try page.response(rows, id: \.id, renderAll: { try $0.map(withSSO) })
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        guard let user = try users.find(id: id) else { throw HTTPError.notFound("No user with id \(id).") }
        return .json(try withSSO(user))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let body = try req.jsonFields()
        if try body.bool("invite") == true {
            return .json(try withSSO(try invitations.invite(body, users: users)), status: 201)
        }
        return .json(try withSSO(try Self.create(body, users: users)), status: 201)
    }

    /// `{"email", "name", "role", "password"}` → a new user (the users page
    /// sends its form through here too).
    static func create(_ body: JSONFields, users: UserService) throws -> UserRecord {
        let email = try body.requiredString("email")
        let role = Role(rawValue: try body.oneOf("role", ["admin", "readonly"]) ?? "readonly")!
        let password = try body.requiredString("password")
        return try users.create(email: email, name: try body.string("name"), role: role, password: password)
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(try withSSO(try Self.update(id: try req.intParameter("id"), try req.jsonFields(), users: users,
                                                 ssoUsers: ssoUsers)))
    }

    /// A partial update (the users page's "Change role" comes through here);
    /// `password_login` needs `ssoUsers`.
    static func update(id: Int64, _ body: JSONFields, users: UserService, ssoUsers: SSOUserService? = nil) throws -> UserRecord {
        let role = try body.oneOf("role", ["admin", "readonly"]).flatMap(Role.init(rawValue:))
        let passwordLogin = try body.bool("password_login")
        let user = try users.update(id: id, email: try body.string("email"), name: try body.string("name"),
                                    role: role, password: try body.string("password"))
        if let passwordLogin, let ssoUsers { try ssoUsers.setPasswordLogin(userID: id, enabled: passwordLogin) }
        return user
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try users.delete(id: try req.intParameter("id"))
        return .noContent()
    }

    /// The user plus the SSO fields: `sso_provider` (null for password-only
    /// users) and `password_login` (false = the login form refuses the password).
    private func withSSO(_ user: UserRecord) throws -> JSON {
        guard var o = Representation.user(user).objectValue else { return Representation.user(user) }
        let state = try ssoUsers.state(userID: user.id)
        o["sso_provider"] = .from(state?.provider)
        o["password_login"] = .bool(state?.passwordLogin ?? true)
        o["invited"] = .bool(try invitations.isInvited(user))
        return .object(o)
    }
}
