import Auth
import Core
import HTTP
import Store

/// `/api/me` and the caller's own API tokens (`/api/tokens`, ACCT).
struct AccountRoutes {
    let access: Access
    let tokens: TokenService

    func register(_ r: inout RouteTable) {
        r.get("/api/me", access.cached(.read, memo: "/api/me") { p in .json(Representation.me(p)) })
        r.get("/api/tokens", access.rule(.accountRead, listTokens))
        r.post("/api/tokens", access.rule(.accountWrite, createToken))
        r.delete("/api/tokens/{id}", access.rule(.accountWrite, revokeToken))
    }

    func listTokens(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let page = try Page(req)
        let rows = try tokens.list(userID: p.user.id, afterID: page.afterID, limit: page.fetchLimit)
        return page.response(rows, id: \.id) { Representation.token($0) }
    }

    func createToken(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let (record, secret) = try Self.createToken(try req.jsonFields(), for: p.user, tokens: tokens)
        return .json(Representation.token(record, secret: secret), status: 201)
    }

    /// `{"name", "scope", "expires_at"}` → a new token; the settings page
    /// sends its form through here too.
    static func createToken(_ body: JSONFields, for user: UserRecord, tokens: TokenService) throws
        -> (record: APITokenRecord, token: String) {
        let name = try body.requiredString("name")
        guard let scope = Scope(rawValue: try body.oneOf("scope", ["read", "write"]) ?? "read") else {
            throw HTTPError(400, "validation_failed", "scope must be read or write.", field: "scope")
        }
        let expires = try body.time("expires_at")
        return try tokens.create(for: user, name: name, scope: scope, expiresAt: expires)
    }

    func revokeToken(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try tokens.revoke(id: try req.intParameter("id"), by: p.user, isAdmin: p.isAdmin)
        return .noContent()
    }
}
