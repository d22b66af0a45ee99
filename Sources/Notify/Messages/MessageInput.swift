import Core

/// A validated `POST /api/messages` body (SPEC §15). Pure: which channel
/// and monitor ids exist is the service's question, inside its transaction.
public struct MessageInput: Sendable, Equatable {
    public static let titleLimit = 200
    public static let bodyLimit = 4000
    public static let defaultPriority: Int64 = 5

    public var title: String
    public var body: String
    public var priority: Int64
    /// Empty: every enabled channel subscribed to `message`.
    public var channelIDs: [Int64]
    public var url: String?
    public var monitorID: Int64?

    public init(title: String, body: String = "", priority: Int64 = MessageInput.defaultPriority, channelIDs: [Int64] = [],
                url: String? = nil, monitorID: Int64? = nil) {
        self.title = title
        self.body = body
        self.priority = priority
        self.channelIDs = channelIDs
        self.url = url
        self.monitorID = monitorID
    }

    /// Limits are in bytes of UTF-8, as the spec counts them. A title is one
    /// line (chat services and phones show one); the body may have lines.
    public static func parse(_ f: JSONFields) throws(JSONFieldError) -> MessageInput {
        let title = try f.requiredString("title")
        guard (1...titleLimit).contains(title.utf8.count) else {
            throw JSONFieldError(field: "title", message: "title must be 1 to \(titleLimit) bytes.")
        }
        if title.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw JSONFieldError(field: "title", message: "title must be one line, without control characters.")
        }
        let body = try f.string("body") ?? ""
        guard body.utf8.count <= bodyLimit else {
            throw JSONFieldError(field: "body", message: "body must be at most \(bodyLimit) bytes.")
        }
        let priority = try f.int("priority", in: 0...10) ?? defaultPriority
        var ids: [Int64] = []
        switch f.object["channel_ids"] {
        case nil, .null?: break
        case .array(let items)?:
            for (i, item) in items.enumerated() {
                guard let id = item.intValue, id > 0 else {
                    throw JSONFieldError(field: "channel_ids[\(i)]", message: "channel_ids[\(i)] must be a channel id.")
                }
                if !ids.contains(id) { ids.append(id) }
            }
        case let other?:
            throw JSONFieldError(field: "channel_ids", message: "channel_ids must be an array of channel ids, not \(other.typeName).")
        }
        let url = try Validate.url(f, "url", required: false)
        let monitorID = try f.int("monitor_id")
        if let monitorID, monitorID <= 0 {
            throw JSONFieldError(field: "monitor_id", message: "monitor_id must be a monitor id.")
        }
        return MessageInput(title: title, body: body, priority: priority, channelIDs: ids, url: url, monitorID: monitorID)
    }
}
