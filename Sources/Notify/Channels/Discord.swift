import Core

/// `discord`: a channel webhook (`webhook_url`), `{"content": …,
/// "allowed_mentions": {"parse": []}}`: no `@everyone`, user or role
/// mention from a monitor name or cause can notify anyone. `content` is cut
/// to Discord's 2,000 characters (a longer one is refused with 400).
public struct DiscordChannel: ChannelSender {
    public static let secretKeys: [String] = []
    /// The webhook URL is the credential (whoever has it can post).
    public static let secretURLKeys = ["webhook_url"]
    static let maxCharacters = 2_000
    let url: String
    public init(config f: JSONFields) throws(JSONFieldError) { url = try Validate.url(f, "webhook_url")! }

    public func request(for n: Notification) -> OutboundRequest? {
        // The link in angle brackets: Discord then shows it without a
        // preview embed of the hub's (sign-in) page.
        .json(url, ["content": .string(ChatText.withLink(n.text, n.linkLines { "<\($0)>" }, limit: Self.maxCharacters,
                                                         in: ChatText.unit)),
                    "allowed_mentions": ["parse": []]])
    }

    /// Errors are `{"message", "code"}`; a 429 says how long to wait both
    /// in its body (`retry_after`, float seconds) and in `Retry-After`: the
    /// longer of the two is kept.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        let j = answer.json
        var reason = j?["message"]?.stringValue
        if let code = j?["code"]?.intValue { reason = (reason ?? "error") + " (code \(code))" }
        let waits = [ServiceAnswer.seconds(j?["retry_after"]), Backoff.parseRetryAfter(answer.header("Retry-After"))]
        return answer.genericVerdict(reason: reason ?? answer.reason, retryAfter: waits.compactMap { $0 }.max())
    }
}
