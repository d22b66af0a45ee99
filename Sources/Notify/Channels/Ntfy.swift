import Store
import Core

/// `ntfy`: `url` (the server), `topic`, optional `token` → ntfy's JSON
/// publishing form: one object POSTed to the server's root, `topic` in the
/// body. JSON and not headers, because a title with emoji or accents then
/// needs no header encoding at all (ntfy accepts UTF-8 or RFC 2047 headers,
/// but not every client path sends them intact). Priority 5 (max) for
/// down/offline, 4 degraded/expiry, 3 up/online, 2 tests; `click` (the
/// JSON name of the `Click` header) opens the hub's page of the incident,
/// monitor or agents. The message is cut to 4,096 bytes: past that ntfy
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
        let (priority, tag): (Int64, String) = switch n.event {
        case .monitorDown?, .agentOffline?: (5, "rotating_light")
        case .monitorDegraded?, .expiry?: (4, "warning")
        case .monitorUp?, .agentOnline?: (3, "white_check_mark")
        case nil: (2, "bell")
        }
        var body = JSONObject([("topic", .string(topic)), ("title", .string(n.title)),
                               ("message", .string(TextLimit.cut(n.body, to: Self.maxMessageBytes, in: .utf8Bytes))),
                               ("priority", .int(priority)), ("tags", [.string(tag)])])
        if let page = n.pageURL { body["click"] = .string(page) }
        let auth: [(name: String, value: String)] = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        return .json(url + "/", .object(body), extraHeaders: auth)
    }
}

extension Character {
    var isASCII: Bool { unicodeScalars.allSatisfy { $0.isASCII } }
}
