import Core

/// `pagerduty`: `routing_key` (an Events API v2 integration key), optional
/// `api_url` (default `https://events.pagerduty.com`). One alert per hub
/// incident, keyed `dedup_key` = `pingtxt-<hub_id>-incident-<id>`: the
/// alert events (`monitor_down`, `monitor_degraded`, `expiry`,
/// `agent_offline`, and their reminders) `trigger` it — PagerDuty folds a
/// repeated trigger into the open alert —, `monitor_up`/`agent_online`
/// `resolve` it; an acknowledgement on the hub `acknowledge`s it, and an
/// incident that closes without a `monitor_up` for this channel is resolved
/// too (`IncidentFollowing`). Severity comes from the priority. A message
/// (SPEC §15) is a change event, which pages no one (`change`).
/// docs/notifications.md "pagerduty" has the facts and their sources.
public struct PagerDutyChannel: IncidentFollowing {
    public static let secretKeys = ["routing_key"]
    static let defaultBase = "https://events.pagerduty.com"
    /// The documented cap of `payload.summary`.
    static let summaryLimit = 1024
    let routingKey: String
    let base: String

    public init(config f: JSONFields) throws(JSONFieldError) {
        let key = try ServiceConfig.token(f, "routing_key", max: 64)
        guard ServiceConfig.alphanumeric(key, length: 32) else {
            throw JSONFieldError(field: f.name("routing_key"), message: "\(f.name("routing_key")) must be the 32-character "
                                 + "integration key of an Events API v2 integration.")
        }
        routingKey = key
        base = try ServiceConfig.apiURL(f) ?? Self.defaultBase
    }

    var endpoint: String { base + "/v2/enqueue" }

    public func request(for n: Notification) -> OutboundRequest? {
        if n.event == .message { return change(n) }
        return AlertKey.ends(n) ? event("resolve", n) : trigger(n)
    }

    /// A message (SPEC §15) is information, not an outage: it goes out as a
    /// change event (`POST /v2/change/enqueue`, same integration key), which
    /// PagerDuty shows on the service's timeline and never pages anyone for,
    /// and which has nothing to resolve later. Whoever wants a message to
    /// page sends it to a channel that pages (a phone's alarm channel).
    /// https://developer.pagerduty.com/docs/events-api-v2/send-change-events/
    func change(_ n: Notification) -> OutboundRequest {
        var details = JSONObject()
        details["event"] = "message"
        details["priority"] = .int(Int64(n.priority))
        details["text"] = .string(n.body)
        if n.monitorID != nil { details["monitor"] = .string(n.monitorName) }
        details["monitor_id"] = JSON.from(n.monitorID)
        details["hub"] = .string(n.hubName)
        let payload = JSONObject([
            ("summary", .string(TextLimit.cut(n.message?.title ?? n.title, to: Self.summaryLimit, in: ServiceText.unit))),
            ("source", .string(n.monitorID != nil ? n.monitorName : n.hubName)),
            ("timestamp", .time(n.at)),
            ("custom_details", .object(details)),
        ])
        var event = JSONObject([("routing_key", .string(routingKey)), ("payload", .object(payload))])
        if let page = n.pageURL { event["links"] = [["href": .string(page), "text": .string("Open")]] }
        return .json(base + "/v2/change/enqueue", .object(event))
    }

    public func acknowledgeRequest(for n: Notification, by: String) -> OutboundRequest? {
        event("acknowledge", n)
    }

    public func resolveRequest(for n: Notification, reason: String) -> OutboundRequest? {
        event("resolve", n)
    }

    /// `acknowledge` and `resolve` need only the key of the alert they follow.
    func event(_ action: String, _ n: Notification) -> OutboundRequest {
        .json(endpoint, ["routing_key": .string(routingKey), "event_action": .string(action), "dedup_key": .string(AlertKey.of(n))])
    }

    func trigger(_ n: Notification) -> OutboundRequest {
        var details = JSONObject()
        details["event"] = .string(n.event?.rawValue ?? "test")
        if n.kind == .reminder { details["reminder"] = true }
        details["monitor"] = .string(n.monitorName)
        details["monitor_id"] = JSON.from(n.monitorID)
        details["incident_id"] = JSON.from(n.incidentID)
        details["cause"] = .string(n.cause)
        details["locations"] = .array(n.locations.map { .string($0) })
        details["since"] = .time(n.since)
        details["hub"] = .string(n.hubName)
        details["text"] = .string(n.body)
        let payload = JSONObject([
            ("summary", .string(TextLimit.cut(n.title, to: Self.summaryLimit, in: ServiceText.unit))),
            // "The unique location of the affected system": the monitor (or agent).
            ("source", .string(n.monitorName.isEmpty ? n.hubName : n.monitorName)),
            ("severity", .string(Self.severity(AlertPriority.of(n)))),
            ("timestamp", .time(n.at)),
            ("class", .string(n.event?.rawValue ?? "test")),
            ("custom_details", .object(details)),
        ])
        var event = JSONObject([("routing_key", .string(routingKey)), ("event_action", "trigger"), ("dedup_key", .string(AlertKey.of(n))),
                                ("payload", .object(payload)), ("client", .string(n.hubName))])
        // The hub's page of the incident (SPEC §10): PagerDuty shows `links`
        // on the alert, and `client_url` behind the client's name.
        if let page = n.pageURL {
            event["client_url"] = .string(page)
            event["links"] = [["href": .string(page), "text": .string("Open in \(n.hubName)")]]
        }
        if let ack = n.acknowledgeURL {
            let link: JSON = ["href": .string(ack), "text": .string("Acknowledge in \(n.hubName)")]
            event["links"] = .array((event["links"]?.arrayValue ?? []) + [link])
        }
        return .json(endpoint, .object(event))
    }

    /// 8–10 `critical`, 6–7 `error`, 4–5 `warning`, 0–3 `info`.
    static func severity(_ priority: Int) -> String {
        switch priority {
        case 8...: "critical"
        case 6...7: "error"
        case 4...5: "warning"
        default: "info"
        }
    }

    /// 202 accepted; 400 refused for good with PagerDuty's `message` and
    /// `errors`; 429 retried, no sooner than the 30 s PagerDuty suggests
    /// (its `Retry-After`, if any, when longer); 5xx retried.
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict {
        let reason = ServiceText.reason(answer.json, ["message", "errors"])
        if answer.status == 429 {
            let wait = max(Backoff.parseRetryAfter(answer.header("Retry-After")) ?? 0, 30)
            return .temporary(error: ServiceAnswer.describe(status: 429, reason: reason ?? "Request Limit Exceeded"), retryAfter: wait)
        }
        return answer.genericVerdict(reason: reason)
    }
}
