import Auth
import Core
import HTTP
import Monitoring
import Store

/// `/api/agents`: admins add, list and remove remote agents (SPEC §8,
/// docs/agents.md "Admin API").
struct AgentRoutes {
    let access: Access
    let agents: AgentService

    func register(_ r: inout RouteTable) {
        r.post("/api/agents", access.rule(.adminWrite, create))
        r.get("/api/agents", access.rule(.adminRead, list))
        r.get("/api/agents/{id}", access.rule(.adminRead, show))
        r.delete("/api/agents/{id}", access.rule(.adminWrite, delete))
    }

    func render(_ a: AgentRecord, token: String? = nil) -> JSON {
        var o = JSONObject([("id", .int(a.id)), ("name", .string(a.name))])
        if let token { o["token"] = .string(token) }
        o["status"] = .string(a.status)
        o["status_since"] = .time(a.statusSince)
        o["last_seen_at"] = .time(a.lastSeenAt)
        o["version"] = .from(a.version)
        o["address"] = .from(a.address)
        o["poll_interval"] = .int(agents.pollInterval)
        o["created_at"] = .time(a.createdAt)
        return .object(o)
    }

    /// The token is shown here only; the hub keeps its SHA-256.
    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let name = try req.jsonFields().requiredString("name")
        let (token, hash) = TokenFactory.generate(.agent)
        let record = try agents.create(name: name, tokenHash: hash)
        Log.shared.info("agent created", ["agent": name, "id": "\(record.id)"])
        return .json(render(record, token: token), status: 201)
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let page = try Page(req)
        let rows = try agents.list(afterID: page.afterID, limit: page.fetchLimit)
        return page.response(rows, id: \.id) { render($0) }
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(render(try agents.find(id: try req.intParameter("id"))))
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try agents.delete(id: try req.intParameter("id"))
        return .noContent()
    }
}
