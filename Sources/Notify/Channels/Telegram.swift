import Core
import Net

/// `telegram`: `bot_token`, `chat_id`, optional `api_url` → Bot API
/// `sendMessage` in plain text (no `parse_mode`, so nothing in a name needs
/// escaping), cut to Telegram's 4,096 characters, link previews off with
/// `link_preview_options` (Bot API 7.0 replaced `disable_web_page_preview`).
/// `api_url` is the Bot API server's base URL (default the public one), for
/// a self-hosted Bot API server; the hub appends `/bot<token>/sendMessage`.
/// The token travels in that path, so a base URL in clear text (`http://`)
/// is accepted only for a loopback address.
public struct TelegramChannel: ChannelSender {
    public static let secretKeys = ["bot_token"]
    static let defaultAPIURL = "https://api.telegram.org"
    static let maxCharacters = 4_096
    let token: String
    let chatID: String
    let apiURL: String

    public init(config f: JSONFields) throws(JSONFieldError) {
        token = try Validate.nonEmpty(f, "bot_token")
        guard token.allSatisfy({ $0.isLetter || $0.isNumber || $0 == ":" || $0 == "_" || $0 == "-" }), token.isASCII else {
            throw JSONFieldError(field: f.name("bot_token"), message: "\(f.name("bot_token")) is not a bot token.")
        }
        if let n = f.object["chat_id"]?.intValue {
            chatID = String(n)
        } else {
            chatID = try Validate.nonEmpty(f, "chat_id")
        }
        apiURL = try ServiceConfig.apiURL(f) ?? Self.defaultAPIURL
    }

    public func request(for n: Notification) -> OutboundRequest? {
        .json("\(apiURL)/bot\(token)/sendMessage",
              ["chat_id": .string(chatID),
               "text": .string(ChatText.withLink(n.text, n.linkLines(), limit: Self.maxCharacters, in: ChatText.unit)),
               "link_preview_options": ["is_disabled": true]])
    }

    /// Every answer is `{"ok", …}`; a refusal is `{"ok": false, "error_code",
    /// "description", "parameters"}`: `description` is the reason,
    /// `parameters.retry_after` the flood-control wait (seconds), and
    /// `parameters.migrate_to_chat_id` the chat a group became, which the
    /// reason names so the admin can update `chat_id`.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        let j = answer.json
        var a = answer
        // A 2xx that says `ok: false` is still a refusal, of its error_code.
        if (200..<300).contains(answer.status), j?["ok"]?.boolValue == false {
            let code = j?["error_code"]?.intValue.map { Int($0) } ?? 400
            a.status = (400..<600).contains(code) ? code : 400
        }
        var reason = j?["description"]?.stringValue ?? answer.reason
        if let chat = j?["parameters"]?["migrate_to_chat_id"]?.intValue {
            reason = (reason ?? "the chat moved") + " (the group is now chat \(chat): set chat_id to it)"
        }
        let wait = ServiceAnswer.seconds(j?["parameters"]?["retry_after"]) ?? Backoff.parseRetryAfter(answer.header("Retry-After"))
        return a.genericVerdict(reason: reason, retryAfter: wait)
    }
}

extension String {
    var isASCII: Bool { utf8.allSatisfy { $0 < 0x80 } }
}
