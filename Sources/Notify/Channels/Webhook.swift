import Core
import Crypto

/// `webhook`: `url`, optional `headers` (object of strings), optional
/// `secret` → `X-Pingtxt-Signature: sha256=<hex HMAC-SHA256 of the body>`.
/// `X-Pingtxt-Delivery` (and the body's `id`) is the outbox id: the same on
/// every retry, so a receiver can drop duplicates. `event_id`, `priority`
/// and `url` follow the spec's fields (SPEC §10).
public struct WebhookChannel: ChannelSender {
    public static let secretKeys = ["secret"]
    public static let headerMapKeys = ["headers"]
    let url: String
    let headers: [(name: String, value: String)]
    let secret: String?

    public init(config f: JSONFields) throws(JSONFieldError) {
        url = try Validate.url(f, "url")!
        var hs: [(name: String, value: String)] = []
        if let h = try f.nested("headers") {
            for (k, v) in h.object.entries {
                guard case .string(let s) = v else {
                    throw JSONFieldError(field: h.name(k), message: "\(h.name(k)) must be a string.")
                }
                try Self.check(name: k, value: s, field: h.name(k))
                hs.append((k, s))
            }
        }
        headers = hs
        secret = try f.string("secret").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The characters of an HTTP token (RFC 9110 §5.6.2), what a field
    /// name is made of.
    static let tokenCharacters = Set(Array("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8))

    /// A header from the config: the name a token, the value without
    /// control characters (a CR or LF would end the header and start one
    /// the admin never wrote). Bytes, not Characters: "\r\n" is one
    /// Character in Swift.
    static func check(name: String, value: String, field: String) throws(JSONFieldError) {
        guard !name.isEmpty, name.utf8.count <= 256, name.utf8.allSatisfy({ tokenCharacters.contains($0) }) else {
            throw JSONFieldError(field: field, message: "\(field): a header name is letters, digits and !#$%&'*+-.^_`|~ only.")
        }
        if value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw JSONFieldError(field: field, message: "\(field) must not contain control characters (such as a line break).")
        }
    }

    public func request(for n: Notification) -> OutboundRequest? {
        var o = JSONObject()
        o["id"] = .string(n.messageID)
        o["event"] = n.event.map { .string($0.rawValue) } ?? .string("test")
        o["kind"] = .string(n.kind.rawValue)
        o["monitor"] = n.monitorID.map { JSON.object(JSONObject([("id", .int($0)), ("name", .string(n.monitorName))])) } ?? .null
        o["incident_id"] = JSON.from(n.incidentID)
        o["cause"] = .string(n.cause)
        o["locations"] = .array(n.locations.map { .string($0) })
        o["since"] = .time(n.since)
        o["at"] = .time(n.at)
        o["title"] = .string(n.title)
        o["text"] = .string(n.body)
        // SPEC §10: the event a receiver can look up in `GET /api/events`,
        // the 0–10 priority as it was queued, and the hub's page of it.
        o["event_id"] = JSON.from(n.eventID)
        o["priority"] = .int(Int64(n.priority))
        o["url"] = JSON.from(n.pageURL)
        // The one-incident acknowledge link of a monitor_down (SPEC §10).
        if let ack = n.acknowledgeURL { o["acknowledge_url"] = .string(ack) }
        let body = JSON.object(o).serialized()
        var hs: [(name: String, value: String)] = [("Content-Type", "application/json"), ("User-Agent", Notification.userAgent),
                                                   ("X-Pingtxt-Delivery", n.messageID)]
        if let secret {
            hs.append(("X-Pingtxt-Signature", "sha256=" + Hex.encode(HMAC.sha256(key: Array(secret.utf8), data: body))))
        }
        return OutboundRequest(url: url, headers: hs + headers, body: body)
    }
}
