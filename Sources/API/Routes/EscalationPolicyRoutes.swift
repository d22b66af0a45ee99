import Auth
import Core
import HTTP
import Notify
import Store

/// `/api/escalation-policies` (SPEC §10): named chains of channels that a
/// monitor's `down` incidents walk until someone acknowledges.
struct EscalationPolicyRoutes {
    let access: Access
    let notify: NotifyService

    func register(_ r: inout RouteTable) {
        r.get("/api/escalation-policies", access.rule(.read, list))
        r.post("/api/escalation-policies", access.rule(.write, create))
        r.get("/api/escalation-policies/{id}", access.rule(.read, show))
        r.patch("/api/escalation-policies/{id}", access.rule(.write, update))
        r.delete("/api/escalation-policies/{id}", access.rule(.write, delete))
    }

    /// The spec's object, fields in its order.
    static func represent(_ p: EscalationPolicyRecord) -> JSON {
        .object(JSONObject([
            ("id", .int(p.id)), ("name", .string(p.name)), ("repeat", .int(p.repeatCount)),
            ("steps", .array(p.steps.map { s in
                .object(JSONObject([("channel_ids", .array(s.channelIDs.map { .int($0) })), ("delay_minutes", .int(s.delayMinutes))]))
            })),
            ("created_at", .time(p.createdAt)), ("updated_at", .time(p.updatedAt)),
        ]))
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let page = try Page(req)
        let rows = try notify.policies(afterID: page.afterID ?? 0, limit: page.fetchLimit)
        return page.response(rows, id: \.id, render: Self.represent)
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        .json(Self.represent(try notify.policy(try req.intParameter("id"))))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let record = try EscalationPolicyValidator.create(try req.jsonFields())
        return .json(Self.represent(try notify.createPolicy(record)), status: 201)
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let existing = try notify.policy(try req.intParameter("id"))
        let record = try EscalationPolicyValidator.patch(existing, with: try req.jsonFields())
        return .json(Self.represent(try notify.updatePolicy(record)))
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try notify.deletePolicy(try req.intParameter("id"))
        return .noContent()
    }
}
