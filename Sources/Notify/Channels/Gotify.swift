import Core

/// `gotify`: `url` (the server), `token` (an application token) → a JSON
/// `POST {url}/message` with the token in `X-Gotify-Key`, `title`,
/// `message` and `priority` 0–10, which is ours as it is (Gotify's scale is
/// the same, and its Android app's bands are the push bands: 0 nothing,
/// 1–3 an icon, 4–7 a sound, 8–10 sound and vibration). The text is marked `text/plain`, so a monitor name is never
/// rendered as Markdown (which would also load remote images).
/// docs/notifications.md "gotify" has the facts and their sources.
public struct GotifyChannel: ChannelSender {
    public static let secretKeys = ["token"]
    let url: String
    let token: String

    public init(config f: JSONFields) throws(JSONFieldError) {
        url = try ServiceConfig.serverURL(f, "url")
        token = try ServiceConfig.token(f, "token", max: 256)
    }

    public func request(for n: Notification) -> OutboundRequest? {
        var extras = JSONObject([("client::display", ["contentType": "text/plain"])])
        // A tap on the notification opens the hub's page (SPEC §10).
        if let page = n.pageURL { extras["client::notification"] = ["click": ["url": .string(page)]] }
        return .json(url + "/message", [
            "title": .string(n.title), "message": .string(n.acknowledgeURL.map { n.body + "\n\nAcknowledge: " + $0 } ?? n.body),
            "priority": .int(Int64(AlertPriority.of(n))),
            "extras": .object(extras),
        ], extraHeaders: [("X-Gotify-Key", token)])
    }

    /// 2xx sent; 5xx (and 429, though Gotify documents no rate limit)
    /// retried; other statuses refused for good with Gotify's `error` and
    /// `errorDescription`.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        answer.genericVerdict(reason: ServiceText.reason(answer.json, ["error", "errorDescription"]))
    }
}
