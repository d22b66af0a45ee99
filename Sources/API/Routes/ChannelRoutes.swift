import Auth
import Core
import HTTP
import Notify
import Store

/// `/api/channels` (SPEC §6): notification channels. Secrets in `config`
/// are write-only: answers mask them, and a PATCH that sends the mask (or
/// leaves the key out) keeps the stored value.
struct ChannelRoutes {
    let access: Access
    let notify: NotifyService

    func register(_ r: inout RouteTable) {
        r.get("/api/channels", access.rule(.read, list))
        r.post("/api/channels", access.rule(.write, create))
        r.get("/api/channels/{id}", access.rule(.read, show))
        r.patch("/api/channels/{id}", access.rule(.write, update))
        r.delete("/api/channels/{id}", access.rule(.write, delete))
        r.post("/api/channels/{id}/test", access.rule(.write, test))
    }

    func represent(_ r: ChannelRecord) throws -> JSON {
        let ch = try Channel(record: r)
        let d = try notify.delivery(r.id)
        let delivery = JSON.object(JSONObject([("sent", .int(d.sent)), ("failed", .int(d.failed)), ("pending", .int(d.pending)),
                                               ("last_error", .from(d.lastError)), ("last_sent_at", .time(d.lastSentAt))]))
        return .object(JSONObject([
            ("id", .int(r.id)), ("name", .string(r.name)), ("type", .string(r.type)), ("enabled", .bool(r.enabled)),
            ("events", .array(ch.events.map { .string($0.rawValue) })), ("monitor_ids", .array(ch.monitorIDs.map { .int($0) })),
            ("reminder_minutes", .int(r.reminderMinutes)), ("config", .object(ch.maskedConfig)), ("delivery", delivery),
            ("created_at", .time(r.createdAt)), ("updated_at", .time(r.updatedAt)),
        ]))
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(.object(JSONObject([("items", .array(try notify.all().map(represent))), ("next_cursor", .null)])))
    }

    func find(_ id: Int64) throws -> ChannelRecord {
        guard let r = try notify.find(id) else { throw HTTPError.notFound("No channel with id \(id).") }
        return r
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(try represent(try find(try req.intParameter("id"))))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let record = try Self.parse(try req.jsonFields(), existing: nil)
        return .json(try represent(try notify.create(record)), status: 201)
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let old = try find(try req.intParameter("id"))
        var record = try Self.parse(try req.jsonFields(), existing: old)
        record.id = old.id
        guard let out = try notify.update(record) else { throw HTTPError.notFound("No channel with id \(old.id).") }
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

    /// A full channel from a POST body, or a PATCH merged over `existing`.
    static func parse(_ f: JSONFields, existing: ChannelRecord?) throws -> ChannelRecord {
        let oldConfig = existing?.config ?? JSONObject()
        let name = try f.string("name") ?? existing?.name
        guard let name, !name.isEmpty, TextLimit.fits(name, characters: 100) else {
            throw JSONFieldError(field: "name", message: "name must be 1 to \(TextLimit.describe(characters: 100)).")
        }
        let typeText = try f.string("type") ?? existing?.type
        guard let typeText, let type = ChannelType(rawValue: typeText) else {
            throw JSONFieldError(field: "type", message: "type must be one of "
                                 + ChannelType.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        let enabled = try f.bool("enabled") ?? existing?.enabled ?? true
        var events: [EventKind]
        if let given = try f.stringArray("events") {
            events = []
            for (i, e) in given.enumerated() {
                guard let kind = EventKind(rawValue: e) else {
                    throw JSONFieldError(field: "events[\(i)]", message: "events[\(i)] must be one of "
                                         + EventKind.allCases.map(\.rawValue).joined(separator: ", ") + ".")
                }
                events.append(kind)
            }
        } else if let existing {
            events = existing.events
        } else {
            events = [.monitorDown, .monitorUp]
        }
        var seen = Set<EventKind>()
        events = events.filter { seen.insert($0).inserted }
        var monitors: [Int64]
        switch f.object["monitor_ids"] {
        case .array(let items)?:
            monitors = []
            for (i, item) in items.enumerated() {
                guard let n = item.intValue, n > 0 else {
                    throw JSONFieldError(field: "monitor_ids[\(i)]", message: "monitor_ids[\(i)] must be a monitor id.")
                }
                monitors.append(n)
            }
        case nil, .null?:
            monitors = existing?.monitorIDs ?? []
        default:
            throw JSONFieldError(field: "monitor_ids", message: "monitor_ids must be an array of monitor ids.")
        }
        let reminder = try f.int("reminder_minutes", in: 0...10_080) ?? existing?.reminderMinutes ?? 0
        var config: JSONObject
        if let given = try f.nested("config") {
            config = given.object
            // Secrets: the mask or an absent key keeps the stored value (same type only).
            if existing?.type == type.rawValue {
                config = Channel.restoringSecrets(config, stored: oldConfig, type: type)
            }
        } else if existing?.type == type.rawValue {
            config = oldConfig
        } else {
            throw JSONFieldError(field: "config", message: "config is required.")
        }
        _ = try Channel(id: 0, name: name, type: type, enabled: enabled, events: [], monitorIDs: [], reminderMinutes: reminder,
                        config: config)
        return ChannelRecord(name: name, type: type.rawValue, enabled: enabled, events: events, monitorIDs: monitors,
                             reminderMinutes: reminder, config: config)
    }
}
