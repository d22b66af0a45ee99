import Core

/// `opsgenie`: `api_key` (an API integration's key), `region` `us` (default)
/// or `eu`, optional `api_url` (wins over `region`). One alert per hub
/// incident, `alias` = `pingtxt-<hub_id>-incident-<id>` (Opsgenie keeps one
/// open alert per alias, so a reminder's create only counts up): alert
/// events create it, `monitor_up`/`agent_online` close it, an
/// acknowledgement on the hub acknowledges it, and an incident that closes
/// without a `monitor_up` for this channel closes it too
/// (`IncidentFollowing`). Priority P1–P5 from ours. A message (SPEC §15)
/// creates an alert of its own (alias per message, tag `message`) at the
/// message's priority, so a priority 2 message is a P4 nobody is paged
/// for, while a 9 pages like an outage; nothing closes it but a person.
/// docs/notifications.md "opsgenie" has the facts and their sources.
public struct OpsgenieChannel: IncidentFollowing {
    public static let secretKeys = ["api_key"]
    static let regions: [(name: String, base: String)] = [("us", "https://api.opsgenie.com"), ("eu", "https://api.eu.opsgenie.com")]
    /// Documented caps of the create request's fields.
    static let messageLimit = 130
    static let descriptionLimit = 15_000
    static let noteLimit = 25_000
    let apiKey: String
    let base: String

    public init(config f: JSONFields) throws(JSONFieldError) {
        apiKey = try ServiceConfig.token(f, "api_key", max: 128)
        let region = try f.oneOf("region", Self.regions.map(\.name)) ?? "us"
        base = try ServiceConfig.apiURL(f) ?? Self.regions.first { $0.name == region }!.base
    }

    var auth: [(name: String, value: String)] { [("Authorization", "GenieKey \(apiKey)")] }

    public func request(for n: Notification) -> OutboundRequest? {
        AlertKey.ends(n) ? action("close", n, note: n.title) : create(n)
    }

    public func acknowledgeRequest(for n: Notification, by: String) -> OutboundRequest? {
        action("acknowledge", n, note: "Acknowledged on \(n.hubName) by \(by).", user: by)
    }

    public func resolveRequest(for n: Notification, reason: String) -> OutboundRequest? {
        action("close", n, note: "Closed on \(n.hubName): \(reason).")
    }

    func create(_ n: Notification) -> OutboundRequest {
        var details = JSONObject()
        details["event"] = .string(n.event?.rawValue ?? "test")
        details["monitor"] = .string(n.monitorName)
        if let m = n.monitorID { details["monitor_id"] = .string(String(m)) }
        if let i = n.incidentID { details["incident_id"] = .string(String(i)) }
        if !n.cause.isEmpty { details["cause"] = .string(n.cause) }
        if !n.locations.isEmpty { details["locations"] = .string(n.locations.joined(separator: ", ")) }
        details["since"] = .time(n.since)
        // Opsgenie has no link field on an alert: the hub's page (SPEC §10)
        // is a detail, which Opsgenie shows (and links) on the alert.
        if let page = n.pageURL { details["url"] = .string(page) }
        if let ack = n.acknowledgeURL { details["acknowledge_url"] = .string(ack) }
        let body: JSON = [
            "message": .string(TextLimit.cut(n.title, to: Self.messageLimit, in: ServiceText.unit)),
            "alias": .string(AlertKey.of(n)),
            "description": .string(TextLimit.cut(n.body, to: Self.descriptionLimit, in: ServiceText.unit)),
            "priority": .string(Self.priority(AlertPriority.of(n))),
            "source": .string(TextLimit.cut(n.hubName, to: 100, in: ServiceText.unit)),
            "entity": .string(TextLimit.cut(n.monitorName, to: 512, in: ServiceText.unit)),
            "tags": ["pingtxt", .string(n.event?.rawValue ?? "test")],
            // Opsgenie's `details` is a map of strings.
            "details": .object(details),
        ]
        return .json(base + "/v2/alerts", body, extraHeaders: auth)
    }

    /// `POST /v2/alerts/{alias}/{close|acknowledge}?identifierType=alias`.
    func action(_ verb: String, _ n: Notification, note: String, user: String? = nil) -> OutboundRequest {
        var body = JSONObject([("source", .string(TextLimit.cut(n.hubName, to: 100, in: ServiceText.unit)))])
        if let user { body["user"] = .string(TextLimit.cut(user, to: 100, in: ServiceText.unit)) }
        body["note"] = .string(TextLimit.cut(note, to: Self.noteLimit, in: ServiceText.unit))
        return .json("\(base)/v2/alerts/\(ServiceText.pathSegment(AlertKey.of(n)))/\(verb)?identifierType=alias", .object(body),
                     extraHeaders: auth)
    }

    /// 8–10 P1, 6–7 P2, 4–5 P3, 2–3 P4, 0–1 P5.
    static func priority(_ p: Int) -> String {
        switch p {
        case 8...: "P1"
        case 6...7: "P2"
        case 4...5: "P3"
        case 2...3: "P4"
        default: "P5"
        }
    }

    /// 202 accepted (processed later: Opsgenie's own log has the outcome);
    /// 429 and 5xx retried; other statuses refused for good, with
    /// Opsgenie's `message` and its `errors` field map as the reason.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        answer.genericVerdict(reason: ServiceText.reason(answer.json, ["message", "errors"]))
    }
}
