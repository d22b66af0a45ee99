import Core
import HTTP

/// A stand-in for a Matrix homeserver's
/// `PUT /_matrix/client/v3/rooms/{roomId}/send/{eventType}/{txnId}` on
/// loopback. It checks `Authorization: Bearer <the token it was given>`
/// (`M_MISSING_TOKEN` / `M_UNKNOWN_TOKEN`), the room (percent-encoded in the
/// path, as the hub sends it), the event type, and an `m.text` content
/// (`body` required; `format` and `formatted_body` together). Like a
/// homeserver it is idempotent per transaction id: a repeated txnId answers
/// the first `event_id` and posts nothing new.
public final class FakeMatrix: Sendable {
    public struct Message: Sendable {
        public var txnID: String
        public var eventID: String
        public var content: JSON
    }

    public let server: StandInServer
    private let posted = StandInBox<[Message]>([])
    public var baseURL: String { server.baseURL }
    /// Every event posted to the room (a repeated txnId is not a new one).
    public var messages: [Message] { posted.current }
    /// The txnId of every send request that reached the stand-in (the ones
    /// `server.failNext` refused included, through `server.exchanges`).
    public var transactionIDs: [String] {
        server.exchanges.compactMap { $0.path.split(separator: "/").last.map(String.init) }
    }

    public init(accessToken: String, roomID: String, encodedRoomID: String) throws {
        let posted = self.posted
        server = try StandInServer([
            .init("PUT", "/_matrix/client/v3/rooms/{room}/send/{type}/{txn}") { req in
                guard let auth = req.headers["Authorization"] else { return Self.error(401, "M_MISSING_TOKEN", "Missing access token") }
                guard auth == "Bearer \(accessToken)" else { return Self.error(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.") }
                let segments = req.path.split(separator: "/", omittingEmptySubsequences: false)
                guard req.parameters["room"] == roomID, segments.count > 5, segments[5] == encodedRoomID else {
                    return Self.error(403, "M_FORBIDDEN", "Unknown room or room id not percent-encoded")
                }
                guard req.parameters["type"] == "m.room.message", let txn = req.parameters["txn"] else {
                    return Self.error(400, "M_UNRECOGNIZED", "Unsupported event type")
                }
                guard let content = StandInCheck.jsonObject(req), content["msgtype"] == "m.text",
                      StandInCheck.text(content, "body", max: 65_536, required: true) == nil,
                      (content["format"] == nil) == (content["formatted_body"] == nil),
                      content["format"] == nil || content["format"] == "org.matrix.custom.html" else {
                    return Self.error(400, "M_BAD_JSON", "Invalid m.text content")
                }
                let eventID = posted.withLock { list -> String in
                    if let earlier = list.first(where: { $0.txnID == txn }) { return earlier.eventID }
                    let id = "$" + StandInCheck.newID() + ":127.0.0.1"
                    list.append(Message(txnID: txn, eventID: id, content: .object(content)))
                    return id
                }
                return .json(200, JSON.object(JSONObject([("event_id", .string(eventID))])).text)
            },
        ])
    }

    static func error(_ status: Int, _ code: String, _ text: String) -> HTTPResponse {
        .json(status, JSON.object(JSONObject([("errcode", .string(code)), ("error", .string(text))])).text)
    }
}
