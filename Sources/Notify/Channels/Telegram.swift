import Core

/// `telegram`: `bot_token`, `chat_id` → Bot API `sendMessage` (plain text).
public struct TelegramChannel: ChannelSender {
    public static let secretKeys = ["bot_token"]
    /// Tests point this at a loopback server.
    static let apiBase = "https://api.telegram.org"
    let token: String
    let chatID: String

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
    }

    public func request(for n: Notification) -> OutboundRequest? {
        .json("\(Self.apiBase)/bot\(token)/sendMessage",
              ["chat_id": .string(chatID), "text": .string(n.text), "disable_web_page_preview": true])
    }
}

extension String {
    var isASCII: Bool { utf8.allSatisfy { $0 < 0x80 } }
}
