import Core

/// `pushover`: `user_key` (a user or group key, or up to 50 of them separated
/// by commas), `app_token` (the application's API token), optional `api_url`
/// (default `https://api.pushover.net`). A JSON `POST /1/messages.json` with
/// `title` (≤ 250 characters), `message` (≤ 1024), `priority` −2…1 from
/// ours and `timestamp` (the event's time, so a retried message shows when
/// it happened). Priority 2 (emergency) is never sent: it repeats until it
/// is acknowledged in Pushover, which needs `retry`/`expire` and receipts
/// the hub does not follow. docs/notifications.md "pushover" has the facts.
public struct PushoverChannel: ChannelSender {
    /// The user key is not a credential by itself, but with any app token it
    /// lets anyone page that person, so it is write-only too.
    public static let secretKeys = ["user_key", "app_token"]
    static let defaultBase = "https://api.pushover.net"
    static let titleLimit = 250
    static let messageLimit = 1024
    static let urlLimit = 512
    let userKey: String
    let appToken: String
    let base: String

    public init(config f: JSONFields) throws(JSONFieldError) {
        let token = try ServiceConfig.token(f, "app_token", max: 64)
        guard ServiceConfig.alphanumeric(token, length: 30) else {
            throw JSONFieldError(field: f.name("app_token"), message: "\(f.name("app_token")) must be the 30-character API token "
                                 + "of a Pushover application.")
        }
        let users = try ServiceConfig.token(f, "user_key", max: 50 * 31)
        let keys = users.split(separator: ",", omittingEmptySubsequences: false)
        guard keys.count <= 50, keys.allSatisfy({ ServiceConfig.alphanumeric(String($0), length: 30) }) else {
            throw JSONFieldError(field: f.name("user_key"), message: "\(f.name("user_key")) must be a 30-character user or group key "
                                 + "(or up to 50, separated by commas).")
        }
        appToken = token
        userKey = users
        base = try ServiceConfig.apiURL(f) ?? Self.defaultBase
    }

    public func request(for n: Notification) -> OutboundRequest? {
        var body = JSONObject([
            ("token", .string(appToken)), ("user", .string(userKey)),
            ("title", .string(TextLimit.cut(n.title, to: Self.titleLimit, in: ServiceText.unit))),
            ("message", .string(Self.message(n))),
            ("priority", .int(Int64(Self.priority(AlertPriority.of(n))))), ("timestamp", .int(n.at)),
        ])
        for (k, v) in link(n).entries { body[k] = v }
        return .json(base + "/1/messages.json", .object(body))
    }

    /// The body, then (SPEC §10) the acknowledge link on a line of its own,
    /// which is never cut: Pushover has one supplementary URL, and that is
    /// the hub's page.
    static func message(_ n: Notification) -> String {
        guard let ack = n.acknowledgeURL else { return TextLimit.cut(n.body, to: messageLimit, in: ServiceText.unit) }
        let tail = "\nAcknowledge: " + ack
        return TextLimit.cut(n.body, to: max(0, messageLimit - ServiceText.unit.size(tail)), in: ServiceText.unit) + tail
    }

    /// The hub's page (SPEC §10) as Pushover's supplementary `url` (at most
    /// 512 characters: a longer one is left out rather than cut into a
    /// broken link) with a `url_title`.
    func link(_ n: Notification) -> JSONObject {
        guard let page = n.pageURL, page.unicodeScalars.count <= Self.urlLimit else { return JSONObject() }
        return JSONObject([("url", .string(page)), ("url_title", .string("Open in \(TextLimit.cut(n.hubName, to: 80, in: ServiceText.unit))"))])
    }

    /// 8–10 → 1 (high: sounds even in the user's quiet hours), 4–7 → 0
    /// (normal), 1–3 → −1 (quiet: no sound), 0 → −2 (lowest: no alert at all).
    static func priority(_ p: Int) -> Int {
        switch p {
        case 8...: 1
        case 4...7: 0
        case 1...3: -1
        default: -2
        }
    }

    /// Sent when the answer is 2xx with `status: 1`; a 2xx whose `status` is
    /// not 1 and every 4xx are refused for good (Pushover asks never to
    /// repeat them) with its `errors`; 429 (the monthly quota ran out) and
    /// 5xx retried.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        let json = answer.json
        let reason = ServiceText.reason(json, ["errors"])
        if (200..<300).contains(answer.status), let status = json?["status"]?.intValue, status != 1 {
            return .permanent(error: ServiceAnswer.describe(status: answer.status, reason: reason ?? "status \(status)"))
        }
        if answer.status == 429 {
            return .temporary(error: ServiceAnswer.describe(status: 429, reason: reason ?? "message quota reached"),
                              retryAfter: Backoff.parseRetryAfter(answer.header("Retry-After")))
        }
        return answer.genericVerdict(reason: reason)
    }
}
