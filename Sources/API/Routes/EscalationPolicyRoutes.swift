import Auth
import Core
import HTTP
import Monitoring
import Notify
import Store

/// `/api/escalation-policies` (SPEC §10): named chains of channels that a
/// monitor's `down` incidents walk until someone acknowledges.
struct EscalationPolicyRoutes {
    let access: Access
    let notify: NotifyService
    var keys: ObjectKeyService { ObjectKeyService(database: notify.database) }

    func keyed(_ p: EscalationPolicyRecord) throws -> JSON {
        KeyedJSON.with(try keys.key(.escalationPolicy, id: p.id), Self.represent(p))
    }

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
        let keyed = try keys.keys(.escalationPolicy)
        return page.response(rows, id: \.id) { KeyedJSON.with(keyed[$0.id], Self.represent($0)) }
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        .json(try keyed(try notify.policy(try req.intParameter("id"))))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let body = try req.jsonFields()
        let record = try EscalationPolicyValidator.create(body)
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.escalationPolicy, key, for: nil)
        let created = try notify.createPolicy(record)
        try keys.apply(.escalationPolicy, id: created.id, key)
        return .json(try keyed(created), status: 201)
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let existing = try notify.policy(try req.intParameter("id"))
        let body = try req.jsonFields()
        let record = try EscalationPolicyValidator.patch(existing, with: body)
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.escalationPolicy, key, for: existing.id)
        let updated = try notify.updatePolicy(record)
        try keys.apply(.escalationPolicy, id: existing.id, key)
        return .json(try keyed(updated))
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try notify.deletePolicy(try req.intParameter("id"))
        return .noContent()
    }
}
