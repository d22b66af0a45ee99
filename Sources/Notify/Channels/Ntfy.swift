import Core

/// `ntfy`: `url` (the server), `topic`, optional `token` → a JSON publish to
/// the server's root. Priority 5 (max) for down/offline, 3 otherwise, 2 for tests.
public struct NtfyChannel: ChannelSender {
    public static let secretKeys = ["token"]
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
        token = try f.string("token").flatMap { $0.isEmpty ? nil : $0 }
    }

    public func request(for n: Notification) -> OutboundRequest? {
        let (priority, tag): (Int64, String) = switch n.event {
        case .monitorDown?, .agentOffline?: (5, "rotating_light")
        case .monitorDegraded?, .expiry?: (4, "warning")
        case .monitorUp?, .agentOnline?: (3, "white_check_mark")
        case nil: (2, "bell")
        }
        let auth: [(name: String, value: String)] = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        return .json(url + "/", ["topic": .string(topic), "title": .string(n.title), "message": .string(n.body),
                                 "priority": .int(priority), "tags": [.string(tag)]], extraHeaders: auth)
    }
}

extension Character {
    var isASCII: Bool { unicodeScalars.allSatisfy { $0.isASCII } }
}
