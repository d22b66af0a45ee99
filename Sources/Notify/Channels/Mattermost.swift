import Core

/// `mattermost`: an incoming webhook (`webhook_url`), Slack-compatible
/// `{"text": …}`. Mattermost translates Slack's `<!channel>` and `<url|text>`
/// and notifies on `@channel`, `@here` and `@all`, so the text has `&`, `<`,
/// `>` escaped and those mentions (and `@everyone`) neutralised; it is cut
/// to 16,383 characters, the longest post Mattermost supports.
public struct MattermostChannel: ChannelSender {
    public static let secretKeys: [String] = []
    /// The webhook URL is the credential (whoever has it can post).
    public static let secretURLKeys = ["webhook_url"]
    static let maxCharacters = 16_383
    let url: String
    public init(config f: JSONFields) throws(JSONFieldError) { url = try Validate.url(f, "webhook_url")! }

    public func request(for n: Notification) -> OutboundRequest? {
        .json(url, ["text": .string(Self.text(n.text, link: n.linkLines()))])
    }

    static func text(_ text: String, link: String? = nil) -> String {
        ChatText.withLink(ChatText.neutralisingGroupMentions(text), link, limit: maxCharacters, in: ChatText.unit,
                          render: ChatText.escapingControlCharacters)
    }
}
