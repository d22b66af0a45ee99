import Core

/// `mattermost`: an incoming webhook (`webhook_url`), Slack-compatible `{"text": …}`.
public struct MattermostChannel: ChannelSender {
    public static let secretKeys: [String] = []
    /// The webhook URL is the credential (whoever has it can post).
    public static let secretURLKeys = ["webhook_url"]
    let url: String
    public init(config f: JSONFields) throws(JSONFieldError) { url = try Validate.url(f, "webhook_url")! }
    public func request(for n: Notification) -> OutboundRequest? {
        .json(url, ["text": .string(n.text)])
    }
}
