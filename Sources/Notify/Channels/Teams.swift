import Store
import Core

/// `teams`: a Teams Workflows webhook (`webhook_url`, "When a Teams webhook
/// request is received"). Workflows take Adaptive Cards only (the old
/// MessageCard of the retired Office 365 connectors is not accepted):
/// `{"type": "message", "attachments": [{"contentType":
/// "application/vnd.microsoft.card.adaptive", "contentUrl": null, "content":
/// <card>}]}`. The card is one bold TextBlock for the title, coloured by
/// event, and one TextBlock per body line; version 1.2, the version of
/// Microsoft's own example, and every element used exists since 1.0. A
/// message is limited to about 28 KB, so the text is cut until the whole
/// body fits in `maxBytes`.
public struct TeamsChannel: ChannelSender {
    public static let secretKeys: [String] = []
    /// The webhook URL is the credential (whoever has it can post).
    public static let secretURLKeys = ["webhook_url"]
    /// Below 28 KB whether a KB is 1,000 or 1,024 bytes.
    static let maxBytes = 28_000
    let url: String
    public init(config f: JSONFields) throws(JSONFieldError) { url = try Validate.url(f, "webhook_url")! }

    public func request(for n: Notification) -> OutboundRequest? {
        .json(url, Self.message(n))
    }

    static func message(_ n: Notification) -> JSON {
        let color: String = switch n.event {
        case .monitorDown?, .agentOffline?: "Attention"
        case .monitorDegraded?, .expiry?: "Warning"
        case .monitorUp?, .agentOnline?: "Good"
        case .message?, nil: "Default"
        }
        let texts = [n.title] + n.body.split(separator: "\n").map(String.init)
        let link = n.pageURL
        let ack = n.acknowledgeURL
        let full = message(texts, color: color, link: link, acknowledge: ack)
        if full.serialized().count <= maxBytes { return full }
        // The largest amount of text (in UTF-16 units, counted over the
        // texts in order) whose message fits: more text, more bytes.
        var (low, high) = (0, texts.reduce(0) { $0 + $1.utf16.count })
        while low < high {
            let mid = (low + high + 1) / 2
            if message(keeping(texts, mid), color: color, link: link, acknowledge: ack).serialized().count <= maxBytes {
                low = mid
            } else {
                high = mid - 1
            }
        }
        return message(keeping(texts, low), color: color, link: link, acknowledge: ack)
    }

    /// The texts in order until `budget` units are used; the one where it
    /// runs out is cut (with `…`), the rest dropped. The title always stays.
    static func keeping(_ texts: [String], _ budget: Int) -> [String] {
        var out: [String] = []
        var left = budget
        for t in texts {
            let n = t.utf16.count
            if n <= left {
                out.append(t)
                left -= n
            } else {
                if left > 1 || out.isEmpty { out.append(TextLimit.cut(t, to: max(left, 1), in: ChatText.unit)) }
                break
            }
        }
        return out
    }

    /// `link`, the hub's page of the alert (SPEC §10), is the card's one
    /// `Action.OpenUrl` button (Adaptive Cards 1.0), never cut with the text.
    /// `acknowledge` (SPEC §10, a monitor_down's one-incident link) is a
    /// second button; it opens the link's page, which has the real button.
    static func message(_ texts: [String], color: String, link: String? = nil, acknowledge: String? = nil) -> JSON {
        var blocks: [JSON] = []
        for (i, t) in texts.enumerated() {
            blocks.append(i == 0
                ? ["type": "TextBlock", "text": .string(t), "weight": "Bolder", "size": "Medium", "color": .string(color), "wrap": true]
                : ["type": "TextBlock", "text": .string(t), "wrap": true])
        }
        var card = JSONObject([("$schema", "http://adaptivecards.io/schemas/adaptive-card.json"), ("type", "AdaptiveCard"),
                               ("version", "1.2"), ("body", .array(blocks))])
        var actions: [JSON] = []
        if let link { actions.append(["type": "Action.OpenUrl", "title": "Open in pingtxt", "url": .string(link)]) }
        if let acknowledge { actions.append(["type": "Action.OpenUrl", "title": "Acknowledge", "url": .string(acknowledge)]) }
        if !actions.isEmpty { card["actions"] = .array(actions) }
        return ["type": "message",
                "attachments": [["contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": nil, "content": .object(card)]]]
    }

    /// Workflows answer 202 Accepted (the flow runs later). The retired
    /// connectors wrote a throttled request as a 2xx whose body says
    /// "Microsoft Teams endpoint returned HTTP error 429": retried, in case a
    /// channel still points at one. Other refusals keep the body's reason.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        if (200..<300).contains(answer.status), answer.bodyText.contains("HTTP error 429") {
            return .temporary(error: ServiceAnswer.describe(status: answer.status, reason: answer.reason),
                              retryAfter: Backoff.parseRetryAfter(answer.header("Retry-After")))
        }
        return answer.genericVerdict(reason: answer.reason)
    }
}
