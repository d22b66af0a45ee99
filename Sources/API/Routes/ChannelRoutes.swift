import Auth
import Core
import HTTP
import Monitoring
import Notify
import Store

/// `/api/channels` (SPEC §6): notification channels. Secrets in `config`
/// are write-only: answers mask them, and a PATCH that sends the mask (or
/// leaves the key out) keeps the stored value.
struct ChannelRoutes {
    let access: Access
    let notify: NotifyService
    var keys: ObjectKeyService { ObjectKeyService(database: notify.database) }

    func register(_ r: inout RouteTable) {
        r.get("/api/channels", access.rule(.read, list))
        r.post("/api/channels", access.rule(.write, create))
        r.get("/api/channels/{id}", access.rule(.read, show))
        r.patch("/api/channels/{id}", access.rule(.write, update))
        r.delete("/api/channels/{id}", access.rule(.write, delete))
        r.post("/api/channels/{id}/test", access.rule(.write, test))
    }

    func represent(_ r: ChannelRecord) throws -> JSON {
        KeyedJSON.with(try keys.key(.channel, id: r.id), try representUnkeyed(r))
    }

    func representUnkeyed(_ r: ChannelRecord) throws -> JSON {
        let ch = try Channel(record: r)
        let d = try notify.delivery(r.id)
        let delivery = JSON.object(JSONObject([("sent", .int(d.sent)), ("failed", .int(d.failed)), ("pending", .int(d.pending)),
                                               ("last_error", .from(d.lastError)), ("last_sent_at", .time(d.lastSentAt))]))
        return .object(JSONObject([
            ("id", .int(r.id)), ("name", .string(r.name)), ("type", .string(r.type)), ("enabled", .bool(r.enabled)),
            ("events", .array(ch.events.map { .string($0.rawValue) })), ("monitor_ids", .array(ch.monitorIDs.map { .int($0) })),
            ("reminder_minutes", .int(r.reminderMinutes)), ("min_priority", .int(r.minPriority)),
            ("config", .object(ch.maskedConfig)), ("delivery", delivery),
            ("created_at", .time(r.createdAt)), ("updated_at", .time(r.updatedAt)),
        ]))
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let keyed = try keys.keys(.channel)
        let items = try notify.all().map { KeyedJSON.with(keyed[$0.id], try representUnkeyed($0)) }
        return .json(.object(JSONObject([("items", .array(items)), ("next_cursor", .null)])))
    }

    func find(_ id: Int64) throws -> ChannelRecord {
        guard let r = try notify.find(id) else { throw HTTPError.notFound("No channel with id \(id).") }
        return r
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(try represent(try find(try req.intParameter("id"))))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let body = try req.jsonFields()
        let record = try ChannelValidator.create(body)
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.channel, key, for: nil)
        let created = try notify.create(record)
        try keys.apply(.channel, id: created.id, key)
        return .json(try represent(created), status: 201)
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let old = try find(try req.intParameter("id"))
        let body = try req.jsonFields()
        let record = try ChannelValidator.patch(old, with: body)
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.channel, key, for: old.id)
        guard let out = try notify.update(record) else { throw HTTPError.notFound("No channel with id \(old.id).") }
        try keys.apply(.channel, id: old.id, key)
        return .json(try represent(out))
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        guard try notify.delete(id) else { throw HTTPError.notFound("No channel with id \(id).") }
        return .noContent()
    }

    func test(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let ch = try Channel(record: try find(try req.intParameter("id")))
        let ids = try notify.sendTest(ch)
        return .json(.object(JSONObject([("queued", .bool(!ids.isEmpty)), ("outbox_id", .from(ids.first)),
                                         ("outbox_ids", .array(ids.map { .int($0) }))])))
    }
}
