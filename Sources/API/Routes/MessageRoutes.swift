import Auth
import Core
import HTTP
import Notify
import Store

/// `POST /api/messages` (SPEC §15): send a message of one's own through the
/// channels. Write access, like sending a channel's test notification.
struct MessageRoutes {
    let access: Access
    let notify: NotifyService

    func register(_ r: inout RouteTable) {
        r.post("/api/messages", access.rule(.write, create))
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let input = try MessageInput.parse(try req.jsonFields())
        let m = try notify.send(input, by: p.user.id)
        return .json(Self.represent(m), status: 201)
    }

    static func represent(_ m: MessageRecord) -> JSON {
        .object(JSONObject([
            ("id", .int(m.id)), ("event_id", .int(m.eventID)), ("title", .string(m.title)), ("body", .string(m.body)),
            ("priority", .int(m.priority)), ("channel_ids", .array(m.channelIDs.map { .int($0) })),
            ("url", .from(m.url)), ("monitor_id", .from(m.monitorID)), ("created_at", .time(m.createdAt)),
        ]))
    }
}
