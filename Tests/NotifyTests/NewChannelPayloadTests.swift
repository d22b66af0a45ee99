import Store
import Testing
import Core
@testable import Notify

/// Fixtures of the issue-13 channel types (their own names, so they never
/// clash with PayloadTests'): the API monitor down at 10:02 UTC on
/// 2025-11-29 and up 5 min later, on the hub with id `h1`.
enum Paging {
    static let down = Notification(kind: .alert, event: .monitorDown, monitorID: 12, monitorName: "API", incidentID: 7, cause: "HTTP 503",
                                   locations: ["hub"], at: 1_764_410_520, since: 1_764_410_520, outboxID: 481, hubID: "h1")
    static let up = Notification(kind: .alert, event: .monitorUp, monitorID: 12, monitorName: "API", incidentID: 7, cause: "",
                                 locations: ["hub"], at: 1_764_410_820, since: 1_764_410_520, outboxID: 482, hubID: "h1")
    static var degraded: Notification {
        var n = down
        n.event = .monitorDegraded
        n.cause = "slow: 2300 ms > 2000 ms"
        return n
    }
    static var test: Notification {
        var n = Notification.test(channelName: "Ops", at: 1_764_410_520, outboxID: 9)
        n.hubID = "h1"
        return n
    }
    static let agentOffline = Notification(kind: .alert, event: .agentOffline, monitorID: nil, monitorName: "eu-west", incidentID: nil,
                                           cause: "", locations: ["eu-west"], at: 1_764_410_520, since: 1_764_410_400, outboxID: 5,
                                           hubID: "h1")
    static let routingKey = "0123456789abcdef0123456789abcdef"
    static let appToken = "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
    static let userKey = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"

    static func sender(_ type: ChannelType, _ config: JSON) throws -> any ChannelSender {
        try type.sender.init(config: JSONFields(config, path: "config"))
    }

    static func headers(_ r: OutboundRequest) -> [String] { r.headers.map { "\($0.name): \($0.value)" } }

    static let downText = "Cause: HTTP 503\\nFrom: hub\\nSince: 2025-11-29T10:02:00Z (0 s ago)"
    static let downTitle = "🔴 API is down — HTTP 503 from hub, since 10:02 UTC"
}

@Suite struct NewChannelPayloadTests {
    static let json = ["Content-Type: application/json", "User-Agent: pingtxt-hub"]

    @Test func pagerDutyTriggerResolveAcknowledge() throws {
        let s = try #require(try Paging.sender(.pagerduty, ["routing_key": .string(Paging.routingKey)]) as? PagerDutyChannel)
        let trigger = try #require(s.request(for: Paging.down))
        #expect(trigger.method == "POST" && trigger.url == "https://events.pagerduty.com/v2/enqueue")
        #expect(Paging.headers(trigger) == Self.json)
        #expect(trigger.bodyText == #"{"routing_key":"0123456789abcdef0123456789abcdef","event_action":"trigger","#
            + #""dedup_key":"pingtxt-h1-incident-7","payload":{"summary":"\#(Paging.downTitle)","source":"API","#
            + #""severity":"critical","timestamp":"2025-11-29T10:02:00Z","class":"monitor_down","custom_details":{"#
            + #""event":"monitor_down","monitor":"API","monitor_id":12,"incident_id":7,"cause":"HTTP 503","locations":["hub"],"#
            + #""since":"2025-11-29T10:02:00Z","hub":"pingtxt","text":"\#(Paging.downText)"}},"client":"pingtxt"}"#)
        let resolve = try #require(s.request(for: Paging.up))
        #expect(resolve.bodyText == #"{"routing_key":"0123456789abcdef0123456789abcdef","event_action":"resolve","#
            + #""dedup_key":"pingtxt-h1-incident-7"}"#)
        let ack = try #require(s.acknowledgeRequest(for: Paging.down, by: "alice@example.com"))
        #expect(ack.url == trigger.url)
        #expect(ack.bodyText == #"{"routing_key":"0123456789abcdef0123456789abcdef","event_action":"acknowledge","#
            + #""dedup_key":"pingtxt-h1-incident-7"}"#)
        #expect(OutboundRequest(storedText: trigger.storedText) == trigger)
    }

    /// (notification, severity, dedup_key, event_action)
    static let pagerDutyKinds: [(Notification, String, String, String)] = [
        (Paging.degraded, "error", "pingtxt-h1-incident-7", "trigger"),
        (Paging.test, "info", "pingtxt-h1-test-9", "trigger"),
        (Paging.agentOffline, "critical", "pingtxt-h1-agent-eu-west", "trigger"),
    ]

    @Test(arguments: pagerDutyKinds)
    func pagerDutyKeysAndSeverity(n: Notification, severity: String, key: String, action: String) throws {
        let r = try #require(try Paging.sender(.pagerduty, ["routing_key": .string(Paging.routingKey)]).request(for: n))
        let j = try JSON.parse(r.bodyText)
        #expect(j["payload"]?["severity"] == .string(severity))
        #expect(j["dedup_key"] == .string(key) && j["event_action"] == .string(action))
    }

    @Test func pagerDutySummaryCutAndAPIURL() throws {
        var long = Paging.down
        long.monitorName = String(repeating: "x", count: 3000)
        let s = try Paging.sender(.pagerduty, ["routing_key": .string(Paging.routingKey), "api_url": "http://127.0.0.1:9999/pd/"])
        let r = try #require(s.request(for: long))
        #expect(r.url == "http://127.0.0.1:9999/pd/v2/enqueue", "api_url is the base; the path is appended, slashes once")
        let summary = try #require(try JSON.parse(r.bodyText)["payload"]?["summary"]?.stringValue)
        #expect(summary.unicodeScalars.count == 1024 && summary.hasSuffix("…"))
    }

    /// PagerDuty severity, Opsgenie priority, Pushover priority per 0–10.
    static let levels: [(Int, String, String, Int)] = [
        (10, "critical", "P1", 1), (8, "critical", "P1", 1), (7, "error", "P2", 0), (6, "error", "P2", 0), (5, "warning", "P3", 0),
        (4, "warning", "P3", 0), (3, "info", "P4", -1), (2, "info", "P4", -1), (1, "info", "P5", -1), (0, "info", "P5", -2),
    ]

    @Test(arguments: levels)
    func priorityMappings(priority: Int, severity: String, opsgenie: String, pushover: Int) {
        #expect(PagerDutyChannel.severity(priority) == severity)
        #expect(OpsgenieChannel.priority(priority) == opsgenie)
        #expect(PushoverChannel.priority(priority) == pushover)
    }

    @Test(arguments: [(Paging.down, 8), (Paging.degraded, 6), (Paging.up, 4), (Paging.test, 1), (Paging.agentOffline, 8)])
    func defaultPriorities(n: Notification, priority: Int) {
        #expect(AlertPriority.of(n) == priority)
    }

    @Test func opsgenieCreateCloseAcknowledge() throws {
        let s = try #require(try Paging.sender(.opsgenie, ["api_key": "eb243592-faa2-4ba2-a551q-1afdf565c889", "region": "eu"])
            as? OpsgenieChannel)
        let create = try #require(s.request(for: Paging.down))
        #expect(create.url == "https://api.eu.opsgenie.com/v2/alerts")
        #expect(Paging.headers(create) == Self.json + ["Authorization: GenieKey eb243592-faa2-4ba2-a551q-1afdf565c889"])
        #expect(create.bodyText == #"{"message":"\#(Paging.downTitle)","alias":"pingtxt-h1-incident-7","#
            + #""description":"\#(Paging.downText)","priority":"P1","source":"pingtxt","entity":"API","#
            + #""tags":["pingtxt","monitor_down"],"details":{"event":"monitor_down","monitor":"API","monitor_id":"12","#
            + #""incident_id":"7","cause":"HTTP 503","locations":"hub","since":"2025-11-29T10:02:00Z"}}"#)
        let close = try #require(s.request(for: Paging.up))
        #expect(close.url == "https://api.eu.opsgenie.com/v2/alerts/pingtxt-h1-incident-7/close?identifierType=alias")
        #expect(close.bodyText == #"{"source":"pingtxt","note":"✅ API is up again after 5 min"}"#)
        let ack = try #require(s.acknowledgeRequest(for: Paging.down, by: "alice@example.com"))
        #expect(ack.url == "https://api.eu.opsgenie.com/v2/alerts/pingtxt-h1-incident-7/acknowledge?identifierType=alias")
        #expect(ack.bodyText == #"{"source":"pingtxt","user":"alice@example.com","note":"Acknowledged on pingtxt by alice@example.com."}"#)
        #expect(Paging.headers(ack).last == "Authorization: GenieKey eb243592-faa2-4ba2-a551q-1afdf565c889")
    }

    /// (config, base URL): `us` by default, `api_url` wins over `region`.
    static let opsgenieBases: [(JSON, String)] = [
        (["api_key": "k"], "https://api.opsgenie.com"),
        (["api_key": "k", "region": "us"], "https://api.opsgenie.com"),
        (["api_key": "k", "region": "eu", "api_url": "https://og-proxy.example.com"], "https://og-proxy.example.com"),
    ]

    @Test(arguments: opsgenieBases)
    func opsgenieBase(config: JSON, base: String) throws {
        #expect(try Paging.sender(.opsgenie, config).request(for: Paging.down)?.url == base + "/v2/alerts")
    }

    @Test func opsgenieMessageCutTo130() throws {
        var long = Paging.down
        long.monitorName = String(repeating: "é", count: 200)
        let r = try #require(try Paging.sender(.opsgenie, ["api_key": "k"]).request(for: long))
        let message = try #require(try JSON.parse(r.bodyText)["message"]?.stringValue)
        #expect(message.unicodeScalars.count == 130 && message.hasSuffix("…"))
    }

    @Test func pushover() throws {
        let s = try Paging.sender(.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey)])
        let r = try #require(s.request(for: Paging.down))
        #expect(r.method == "POST" && r.url == "https://api.pushover.net/1/messages.json")
        #expect(Paging.headers(r) == Self.json)
        #expect(r.bodyText == #"{"token":"\#(Paging.appToken)","user":"\#(Paging.userKey)","title":"\#(Paging.downTitle)","#
            + #""message":"\#(Paging.downText)","priority":1,"timestamp":1764410520}"#)
        let test = try #require(s.request(for: Paging.test))
        #expect(try JSON.parse(test.bodyText)["priority"] == .int(-1), "a test is quiet, never silent")
        var long = Paging.down
        long.cause = String(repeating: "c", count: 2000)
        long.monitorName = String(repeating: "n", count: 400)
        let longRequest = try #require(s.request(for: long))
        let cut = try JSON.parse(longRequest.bodyText)
        #expect(cut["message"]?.stringValue?.unicodeScalars.count == 1024)
        #expect(cut["title"]?.stringValue?.unicodeScalars.count == 250)
    }

    @Test func gotify() throws {
        let s = try Paging.sender(.gotify, ["url": "https://push.example.com/", "token": "AcbDeF12345.-_"])
        let r = try #require(s.request(for: Paging.degraded))
        #expect(r.url == "https://push.example.com/message")
        #expect(Paging.headers(r) == Self.json + ["X-Gotify-Key: AcbDeF12345.-_"])
        #expect(r.bodyText == #"{"title":"🟡 API is degraded — slow: 2300 ms > 2000 ms from hub, since 10:02 UTC","#
            + #""message":"Cause: slow: 2300 ms > 2000 ms\nFrom: hub\nSince: 2025-11-29T10:02:00Z (0 s ago)","priority":6,"#
            + #""extras":{"client::display":{"contentType":"text/plain"}}}"#)
    }

    @Test func matrix() throws {
        let s = try Paging.sender(.matrix, ["homeserver": "https://matrix.example.org", "access_token": "syt_abc",
                                            "room_id": "!ops:example.org"])
        var n = Paging.down
        n.monitorName = "<b>API</b> & \"co\""
        let r = try #require(s.request(for: n))
        #expect(r.method == "PUT")
        #expect(r.url == "https://matrix.example.org/_matrix/client/v3/rooms/%21ops%3Aexample.org/send/m.room.message/h1-outbox-481")
        #expect(Paging.headers(r) == Self.json + ["Authorization: Bearer syt_abc"])
        let title = "🔴 <b>API</b> & \\\"co\\\" is down — HTTP 503 from hub, since 10:02 UTC"
        let escaped = "🔴 &lt;b&gt;API&lt;/b&gt; &amp; &quot;co&quot; is down — HTTP 503 from hub, since 10:02 UTC"
        #expect(r.bodyText == #"{"msgtype":"m.text","body":"\#(title)\n\#(Paging.downText)","format":"org.matrix.custom.html","#
            + #""formatted_body":"<strong>\#(escaped)</strong><br>Cause: HTTP 503<br>From: hub<br>"#
            + #"Since: 2025-11-29T10:02:00Z (0 s ago)"}"#)
        // The same row, built again (a retry is the stored bytes anyway): the same transaction id.
        #expect(s.request(for: n)?.url == r.url)
        var other = n
        other.outboxID = 482
        #expect(s.request(for: other)?.url.hasSuffix("/h1-outbox-482") == true)
    }

    @Test func googleChat() throws {
        let url = "https://chat.googleapis.com/v1/spaces/AAAA/messages?key=K&token=T"
        let s = try Paging.sender(.googlechat, ["webhook_url": .string(url)])
        var n = Paging.down
        n.monitorName = "<users/all> API"
        n.cause = "<https://evil.example|click>"
        let r = try #require(s.request(for: n))
        #expect(r.url == url && Paging.headers(r) == Self.json)
        #expect(r.bodyText == #"{"text":"🔴 ‹users/all› API is down — ‹https://evil.example|click› from hub, since 10:02 UTC\n"#
            + #"Cause: ‹https://evil.example|click›\nFrom: hub\nSince: 2025-11-29T10:02:00Z (0 s ago)"}"#)
        var long = Paging.down
        long.cause = String(repeating: "€", count: 20_000)
        let longRequest = try #require(s.request(for: long))
        let text = try #require(try JSON.parse(longRequest.bodyText)["text"]?.stringValue)
        #expect(text.utf8.count <= 32_000 && text.hasSuffix("…"))
    }

    @Test func everyNewTypeIsStampedWithItsService() throws {
        let configs: [(ChannelType, JSON)] = [
            (.pagerduty, ["routing_key": .string(Paging.routingKey)]), (.opsgenie, ["api_key": "k"]),
            (.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey)]),
            (.gotify, ["url": "http://127.0.0.1:1", "token": "t"]),
            (.matrix, ["homeserver": "http://127.0.0.1:1", "access_token": "t", "room_id": "!r"]),
            (.googlechat, ["webhook_url": "http://127.0.0.1:1/v1/spaces/A/messages"]),
        ]
        for (type, config) in configs {
            let p = try #require(try Paging.sender(type, config).outboxPayload(for: Paging.down))
            #expect(OutboundRequest(storedText: p.text)?.service == type.rawValue)
        }
    }
}
