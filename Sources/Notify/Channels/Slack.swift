import Core

/// `slack`: an incoming webhook (`webhook_url`), `{"text": …}`. `&`, `<`
/// and `>` are escaped, so a monitor name or cause cannot mention
/// (`<!channel>`, `<@U…>`) or hide a link (`<url|text>`); the text is cut
/// to 40,000 characters, past which Slack truncates anyway.
public struct SlackChannel: ChannelSender {
    public static let secretKeys: [String] = []
    /// The webhook URL is the credential (whoever has it can post).
    public static let secretURLKeys = ["webhook_url"]
    static let maxCharacters = 40_000
    let url: String
    public init(config f: JSONFields) throws(JSONFieldError) { url = try Validate.url(f, "webhook_url")! }

    public func request(for n: Notification) -> OutboundRequest? {
        .json(url, ["text": .string(Self.text(n.text, link: n.linkLines()))])
    }

    /// The escaped text, cut after escaping so an entity is never split,
    /// with the hub's link on its own last line (Slack links a bare URL).
    static func text(_ text: String, link: String? = nil) -> String {
        ChatText.withLink(text, link, limit: maxCharacters, in: ChatText.unit, render: ChatText.escapingControlCharacters)
    }

    /// Slack refuses in plain text (`invalid_payload`, `channel_not_found`,
    /// `no_text`, `action_prohibited`…): that body is the reason. A 429's
    /// `Retry-After` (seconds) sets the wait.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        answer.genericVerdict(reason: answer.reason)
    }
}
