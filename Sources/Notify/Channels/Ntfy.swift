import Store
import Core

/// `ntfy`: `url` (the server), `topic`, optional `token` → ntfy's JSON
/// publishing form: one object POSTed to the server's root, `topic` in the
/// body. JSON and not headers, because a title with emoji or accents then
/// needs no header encoding at all (ntfy accepts UTF-8 or RFC 2047 headers,
/// but not every client path sends them intact). `priority` is ntfy's 1–5
/// from ours (`priority(_:)`); `click` (the JSON name of the `Click`
/// header) opens the hub's page of the incident, monitor or agents. The message is cut to 4,096 bytes: past that ntfy
/// turns it into an attachment. The token goes in `Authorization: Bearer`.
public struct NtfyChannel: ChannelSender {
    public static let secretKeys = ["token"]
    static let maxMessageBytes = 4_096
    let url: String
    let topic: String
    let token: String?

    public init(config f: JSONFields) throws(JSONFieldError) {
        var u = try Validate.url(f, "url")!
        while u.hasSuffix("/") { u.removeLast() }
        url = u
        topic = try Validate.nonEmpty(f, "topic")
        guard topic.count <= 64, topic.allSatisfy({ ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") && $0.isASCII }) else {
            throw JSONFieldError(field: f.name("topic"), message: "\(f.name("topic")) must be letters, digits, - and _ (at most 64).")
        }
        token = try Self.token(f)
    }

    /// The token is sent in a header: a CR or LF would end that header and
    /// start another, so any control character is refused, and so is
    /// anything else a bearer token cannot hold (spaces, non-ASCII).
    static func token(_ f: JSONFields) throws(JSONFieldError) -> String? {
        guard let t = try f.string("token"), !t.isEmpty else { return nil }
        let field = f.name("token")
        if t.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw JSONFieldError(field: field, message: "\(field) must not contain control characters (such as a line break).")
        }
        guard t.utf8.count <= 1024, t.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw JSONFieldError(field: field, message: "\(field) must be printable ASCII without spaces, at most 1024 bytes.")
        }
        return t
    }

    public func request(for n: Notification) -> OutboundRequest? {
        let tag = switch n.event {
        case .monitorDown?, .agentOffline?: "rotating_light"
        case .monitorDegraded?, .expiry?: "warning"
        case .monitorUp?, .agentOnline?: "white_check_mark"
        case .message?: "speech_balloon"
        case nil: "bell"
        }
        var body = JSONObject([("topic", .string(topic)), ("title", .string(n.title)),
                               ("message", .string(TextLimit.cut(n.body, to: Self.maxMessageBytes, in: .utf8Bytes))),
                               ("priority", .int(Self.priority(AlertPriority.of(n)))), ("tags", [.string(tag)])])
        if let page = n.pageURL { body["click"] = .string(page) }
        // SPEC §10: acknowledge as an action button. A `view` action opens
        // the link's page (with its own button), never acknowledging by a
        // request of its own. https://docs.ntfy.sh/publish/#action-buttons
        if let ack = n.acknowledgeURL {
            body["actions"] = [["action": "view", "label": "Acknowledge", "url": .string(ack), "clear": true]]
        }
        let auth: [(name: String, value: String)] = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        return .json(url + "/", .object(body), extraHeaders: auth)
    }

    /// Ours (0–10) on ntfy's 1–5, band for band with the phone's push:
    /// 8–10 → 5 `max` (long vibration bursts, pop-over), 6–7 → 4 `high`,
    /// 4–5 → 3 `default` (sound), 1–3 → 2 `low` (no sound or vibration),
    /// 0 → 1 `min` (folded away). https://docs.ntfy.sh/publish/#message-priority
    static func priority(_ p: Int) -> Int64 {
        switch p {
        case 8...: 5
        case 6...7: 4
        case 4...5: 3
        case 1...3: 2
        default: 1
        }
    }
}

extension Character {
    var isASCII: Bool { unicodeScalars.allSatisfy { $0.isASCII } }
}
