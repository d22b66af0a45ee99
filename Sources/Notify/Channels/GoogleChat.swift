import Core
import Net

/// `googlechat`: an incoming webhook (`webhook_url`, the credential: its
/// `key` and `token` let anyone post) → `{"text": …}`. The URL must be
/// `https://chat.googleapis.com/v1/spaces/…`, the only place Google issues
/// them, so a typo'd or look-alike host never receives the alerts; the one
/// exception is a loopback address (http or https), for a local relay and
/// the tests. Google documents no way to escape its markup, so the two
/// characters that open markup that acts on people, `<` and `>` (mentions
/// such as `<users/all>`, links `<url|text>`), are replaced by the
/// look-alikes ‹ and ›; `*`, `_`, `~` and backticks can only change
/// emphasis and stay. The text is cut to the documented 32,000 bytes.
/// docs/notifications.md "googlechat" has the facts and their sources.
public struct GoogleChatChannel: ChannelSender {
    public static let secretKeys: [String] = []
    public static let secretURLKeys = ["webhook_url"]
    static let host = "chat.googleapis.com"
    /// The message size limit (text plus cards), less room for the JSON around it.
    static let textLimit = 32_000 - 64
    let url: String

    public init(config f: JSONFields) throws(JSONFieldError) {
        let given = try Validate.url(f, "webhook_url")!
        let parsed = try? ClientURL.parse(given)
        let official = parsed.map { $0.scheme == "https" && $0.host == Self.host && $0.port == 443 && $0.target.hasPrefix("/v1/spaces/") }
        guard let parsed, official == true || LoopbackHost.contains(parsed.host) else {
            throw JSONFieldError(field: f.name("webhook_url"), message: "\(f.name("webhook_url")) must be a Google Chat webhook URL "
                                 + "(https://chat.googleapis.com/v1/spaces/…).")
        }
        url = given
    }

    public func request(for n: Notification) -> OutboundRequest? {
        .json(url, ["text": .string(ChatText.withLink(Self.neutralized(n.text), n.linkLines(), limit: Self.textLimit, in: .utf8Bytes))])
    }

    /// `<` → ‹ and `>` → ›: no mention, link or other `<…>` markup from a
    /// monitor name or a cause.
    static func neutralized(_ s: String) -> String {
        Escaping.replacing(s) { scalar in
            switch scalar {
            case "<": "‹"
            case ">": "›"
            default: nil
            }
        }
    }

    /// 2xx sent; 429 (a quota) and 5xx retried; other statuses refused for
    /// good with Google's `error.status` and `error.message`.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        answer.genericVerdict(reason: ServiceText.reason(answer.json?["error"], ["status", "message"]))
    }
}
