import Core

/// `discord`: a channel webhook (`webhook_url`), `{"content": …}` (Discord
/// caps content at 2000 characters).
public struct DiscordChannel: ChannelSender {
    public static let secretKeys: [String] = []
    /// The webhook URL is the credential (whoever has it can post).
    public static let secretURLKeys = ["webhook_url"]
    let url: String
    public init(config f: JSONFields) throws(JSONFieldError) { url = try Validate.url(f, "webhook_url")! }
    public func request(for n: Notification) -> OutboundRequest? {
        .json(url, ["content": .string(String(n.text.prefix(2000)))])
    }
}
