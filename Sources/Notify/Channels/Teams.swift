import Core

/// `teams`: an incoming webhook (`webhook_url`) with a MessageCard.
public struct TeamsChannel: ChannelSender {
    public static let secretKeys: [String] = []
    /// The webhook URL is the credential (whoever has it can post).
    public static let secretURLKeys = ["webhook_url"]
    let url: String
    public init(config f: JSONFields) throws(JSONFieldError) { url = try Validate.url(f, "webhook_url")! }
    public func request(for n: Notification) -> OutboundRequest? {
        let color: String = switch n.event {
        case .monitorDown?, .agentOffline?: "D93025"
        case .monitorDegraded?, .expiry?: "F2A600"
        case .monitorUp?, .agentOnline?: "1E8E3E"
        case nil: "5F6368"
        }
        return .json(url, ["@type": "MessageCard", "@context": "https://schema.org/extensions", "summary": .string(n.title),
                           "themeColor": .string(color), "title": .string(n.title),
                           "text": .string(n.body.split(separator: "\n").joined(separator: "<br>"))])
    }
}
