import Core

/// `matrix`: `homeserver` (its client-server API address), `access_token`
/// (the sending account's), `room_id` (`!…`, not an alias) → `PUT
/// /_matrix/client/v3/rooms/{roomId}/send/m.room.message/{txnId}` with an
/// `m.text` event: `body` plain, `formatted_body` the same text as escaped
/// HTML with the title in bold. The transaction id is the outbox message id
/// behind the hub's id (`<hub_id>-outbox-<id>`): a retry of a row reuses it,
/// so the homeserver answers a repeat with the first event instead of
/// posting twice, while a hub that starts over with a fresh database (ids
/// from 1 again, a new hub id) never collides with its old ids.
/// docs/notifications.md "matrix" has the facts and their sources.
public struct MatrixChannel: ChannelSender {
    public static let secretKeys = ["access_token"]
    /// An event is at most 64 KiB; `body` is cut to this many bytes, so even
    /// fully escaped (one byte → six) the two bodies stay well inside it.
    static let textLimit = 8000
    let homeserver: String
    let accessToken: String
    let roomID: String

    public init(config f: JSONFields) throws(JSONFieldError) {
        homeserver = try ServiceConfig.serverURL(f, "homeserver")
        accessToken = try ServiceConfig.token(f, "access_token", max: 1024)
        let room = try ServiceConfig.token(f, "room_id", max: 255)
        guard room.hasPrefix("!"), room.utf8.count > 1 else {
            throw JSONFieldError(field: f.name("room_id"), message: "\(f.name("room_id")) must be a room ID (it starts with !; "
                                 + "an alias such as #ops:example.org is not one; find the ID in the room's settings).")
        }
        roomID = room
    }

    static func transactionID(_ n: Notification) -> String {
        n.hubID.isEmpty ? n.messageID : "\(n.hubID)-\(n.messageID)"
    }

    public func request(for n: Notification) -> OutboundRequest? {
        // The hub's link (SPEC §10) comes last and is never cut.
        let link = n.pageURL
        let ack = n.acknowledgeURL.map { "Acknowledge: " + $0 }
        let room = Self.textLimit - (link.map { $0.utf8.count + 1 } ?? 0) - (ack.map { $0.utf8.count + 1 } ?? 0)
        let title = TextLimit.cut(n.title, to: room, in: .utf8Bytes)
        let body = TextLimit.cut(n.body, to: max(0, room - title.utf8.count - 1), in: .utf8Bytes)
        var plain = title + "\n" + body
        var html = "<strong>\(ServiceText.html(title))</strong><br>"
            + body.split(separator: "\n", omittingEmptySubsequences: false).map { ServiceText.html(String($0)) }.joined(separator: "<br>")
        if let link {
            plain += "\n" + link
            html += "<br><a href=\"\(ServiceText.html(link))\">\(ServiceText.html(link))</a>"
        }
        if let ack, let url = n.acknowledgeURL {
            plain += "\n" + ack
            html += "<br><a href=\"\(ServiceText.html(url))\">Acknowledge</a>"
        }
        let content: JSON = ["msgtype": "m.text", "body": .string(plain), "format": "org.matrix.custom.html",
                             "formatted_body": .string(html)]
        let url = "\(homeserver)/_matrix/client/v3/rooms/\(ServiceText.pathSegment(roomID))/send/m.room.message/"
            + ServiceText.pathSegment(Self.transactionID(n))
        return OutboundRequest(method: "PUT", url: url,
                               headers: [("Content-Type", "application/json"), ("User-Agent", Notification.userAgent),
                                         ("Authorization", "Bearer \(accessToken)")],
                               body: content.serialized())
    }

    /// 2xx sent. `M_LIMIT_EXCEEDED` (with whatever status) retried after the
    /// `Retry-After` header or, from older servers, `retry_after_ms`; other
    /// errors by status (429/5xx retried, 4xx refused for good) with
    /// Matrix's `errcode` and `error` as the reason.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        if (200..<300).contains(answer.status) { return .sent }
        let json = answer.json
        let reason = ServiceText.reason(json, ["errcode", "error"])
        if json?["errcode"]?.stringValue == "M_LIMIT_EXCEEDED" {
            var wait = Backoff.parseRetryAfter(answer.header("Retry-After"))
            if wait == nil {
                switch json?["retry_after_ms"] {
                case .int(let ms)? where ms > 0: wait = (ms + 999) / 1000
                case .double(let ms)? where ms > 0 && ms < 1e12: wait = Int64((ms / 1000).rounded(.up))
                default: break
                }
            }
            return .temporary(error: ServiceAnswer.describe(status: answer.status, reason: reason), retryAfter: wait)
        }
        return answer.genericVerdict(reason: reason)
    }
}
