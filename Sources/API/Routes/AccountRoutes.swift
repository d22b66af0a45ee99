import Auth
import Core
import HTTP

/// `/api/me` and the caller's own API tokens (`/api/tokens`, ACCT).
struct AccountRoutes {
    let access: Access
    let tokens: TokenService

    func register(_ r: inout RouteTable) {
        r.get("/api/me", guarded(me))
        r.get("/api/tokens", guarded(listTokens))
        r.post("/api/tokens", guarded(createToken))
        r.delete("/api/tokens/{id}", guarded(revokeToken))
    }

    func me(_ req: HTTPRequest) throws -> HTTPResponse {
        .json(Representation.me(try access.check(req, .read)))
    }

    func listTokens(_ req: HTTPRequest) throws -> HTTPResponse {
        let p = try access.check(req, .accountRead)
        let page = try Page(req)
        let rows = try tokens.list(userID: p.user.id, afterID: page.afterID, limit: page.fetchLimit)
        return page.response(rows, id: \.id) { Representation.token($0) }
    }

    func createToken(_ req: HTTPRequest) throws -> HTTPResponse {
        let p = try access.check(req, .accountWrite)
        let body = try req.jsonFields()
        let name = try body.requiredString("name")
        guard let scope = Scope(rawValue: try body.oneOf("scope", ["read", "write"]) ?? "read") else {
            throw HTTPError(400, "validation_failed", "scope must be read or write.", field: "scope")
        }
        let expires = try body.time("expires_at")
        let (record, secret) = try tokens.create(for: p.user, name: name, scope: scope, expiresAt: expires)
        return .json(Representation.token(record, secret: secret), status: 201)
    }

    func revokeToken(_ req: HTTPRequest) throws -> HTTPResponse {
        let p = try access.check(req, .accountWrite)
        try tokens.revoke(id: try req.intParameter("id"), by: p.user, isAdmin: p.isAdmin)
        return .noContent()
    }
}
