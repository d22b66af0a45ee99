import Auth
import Core
import HTTP
import Store

/// `/users` (admins only, like `/api/users`): the list, "Add user", and per
/// user "Change role" and "Delete". `UserService` keeps its rules (the last
/// admin, an email already taken); a refusal shows on the page.
struct UsersPage {
    let web: WebLayer
    let users: UserService

    static let flashes = [
        "added": "User added.",
        "role-changed": "Role changed.",
        "deleted": "User deleted.",
    ]
    static let listLimit = 500

    func register(_ r: inout RouteTable) {
        r.get("/users", web.signedInPage(show))
        r.post("/users", web.signedInForm(page: "/users", rule: .adminAccountWrite, add))
        r.post("/users/{id}/role", web.signedInForm(page: "/users", rule: .adminAccountWrite, changeRole))
        r.post("/users/{id}/delete", web.signedInForm(page: "/users", rule: .adminAccountWrite, delete))
    }

    func show(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        try Access.authorize(ctx.principal, .adminAccountRead)
        return try render(ctx, flash: WebFormat.flash(req, Self.flashes))
    }

    func add(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        let f = ctx.form
        let body: JSON = ["email": .string(f.trimmed("email")), "name": .string(f.trimmed("name")),
                          "role": .string(f.trimmed("role")), "password": .string(f["password"] ?? "")]
        return try attempt(ctx, form: f) {
            _ = try UserRoutes.create(try JSONFields(body), users: users)
            return web.redirect("/users?flash=added")
        }
    }

    func changeRole(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let body: JSON = ["role": .string(ctx.form.trimmed("role"))]
        return try attempt(ctx, form: nil) {
            _ = try UserRoutes.update(id: id, try JSONFields(body), users: users)
            return web.redirect("/users?flash=role-changed")
        }
    }

    func delete(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        return try attempt(ctx, form: nil) {
            try users.delete(id: id)
            return web.redirect("/users?flash=deleted")
        }
    }

    /// Runs a write; a refusal (validation, last admin, email taken)
    /// re-renders the page with the API's message and status.
    private func attempt(_ ctx: SignedIn, form: WebForm?, _ body: () throws -> HTTPResponse) throws -> HTTPResponse {
        do {
            return try body()
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try render(ctx, error: e.message, form: form, status: e.status)
        }
    }

    func render(_ ctx: SignedIn, flash: String? = nil, error: String? = nil, form: WebForm? = nil,
                status: Int = 200) throws -> HTTPResponse {
        let rows: [TemplateValue] = try users.list(afterID: nil, limit: Self.listLimit).map { u in
            ["id": .int(u.id), "email": .string(u.email), "name": WebFormat.text(u.name), "role": .string(u.role),
             "is_admin": .bool(u.role == Role.admin.rawValue), "totp": .bool(u.totpEnabled),
             "created": .string(WebFormat.time(u.createdAt)), "is_me": .bool(u.id == ctx.principal.user.id)]
        }
        let role = form?.trimmed("role") ?? Role.readonly.rawValue
        let values: TemplateValue = [
            "csrf": .string(ctx.csrf), "users": .list(rows),
            "form": ["email": .string(form?["email"] ?? ""), "name": .string(form?["name"] ?? ""),
                     "admin": .bool(role == Role.admin.rawValue), "readonly": .bool(role != Role.admin.rawValue)],
        ]
        return web.adminPage(ctx, title: "Users", current: "/users", template: "users.html", values,
                             flash: flash, error: error, status: status)
    }
}
