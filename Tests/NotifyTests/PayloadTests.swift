import Store
import Testing
import Core
import Notify

/// 2025-11-29T10:02:00Z, down for 5 min.
let down = Notification(kind: .alert, event: .monitorDown, monitorID: 12, monitorName: "API", incidentID: 7, cause: "HTTP 503",
                        locations: ["hub"], at: 1_764_410_520, since: 1_764_410_520, outboxID: 481)
let up = Notification(kind: .alert, event: .monitorUp, monitorID: 12, monitorName: "API", incidentID: 7, cause: "",
                      locations: ["hub"], at: 1_764_410_820, since: 1_764_410_520, outboxID: 482)

func sender(_ type: ChannelType, _ config: JSON) throws -> any ChannelSender {
    try type.sender.init(config: JSONFields(config, path: "config"))
}

func headers(_ r: OutboundRequest) -> [String] { r.headers.map { "\($0.name): \($0.value)" } }

@Suite struct TextTests {
    @Test func alertTexts() {
        #expect(down.title == "🔴 API is down — HTTP 503 from hub, since 10:02 UTC")
        #expect(down.body == "Cause: HTTP 503\nFrom: hub\nSince: 2025-11-29T10:02:00Z (0 s ago)")
        #expect(up.title == "✅ API is up again after 5 min")
        #expect(up.body == "Down since 2025-11-29T10:02:00Z (5 min), recovered at 2025-11-29T10:07:00Z.")
        var reminder = down
        reminder.kind = .reminder
        reminder.at += 3 * 3600 + 120
        #expect(reminder.title == "🔴 Reminder: API is down — HTTP 503 from hub, since 10:02 UTC")
        #expect(reminder.body.hasSuffix("(3 h 2 min ago)"))
        let t = Notification.test(channelName: "Ops", at: 0, outboxID: 1)
        #expect(t.title == "🔔 Test notification from pingtxt")
        #expect(t.event == nil)
    }
}

@Suite struct PayloadTests {
    @Test func webhookSignedBody() throws {
        let s = try sender(.webhook, ["url": "https://example.com/hook", "secret": "s3cret", "headers": ["X-Team": "ops"]])
        // SPEC §10's fields: the event's id, the priority as queued and the hub's page.
        var n = down
        n.eventID = 55
        n.priority = 9
        n.publicURL = "https://hub.example.com/"
        let r = try #require(s.request(for: n))
        let body = #"{"id":"outbox-481","event":"monitor_down","kind":"alert","monitor":{"id":12,"name":"API"},"incident_id":7,"#
            + #""cause":"HTTP 503","locations":["hub"],"since":"2025-11-29T10:02:00Z","at":"2025-11-29T10:02:00Z","#
            + #""title":"🔴 API is down — HTTP 503 from hub, since 10:02 UTC","text":"Cause: HTTP 503\nFrom: hub\nSince: 2025-11-29T10:02:00Z (0 s ago)","#
            + #""event_id":55,"priority":9,"url":"https://hub.example.com/incidents/7"}"#
        #expect(r.method == "POST" && r.url == "https://example.com/hook")
        #expect(r.bodyText == body)
        // python3 -c 'import hmac,hashlib;print(hmac.new(b"s3cret",BODY.encode(),hashlib.sha256).hexdigest())'
        #expect(headers(r) == ["Content-Type: application/json", "User-Agent: pingtxt-hub", "X-Pingtxt-Delivery: outbox-481",
                               "X-Pingtxt-Signature: sha256=\(expectedSignature)", "X-Team: ops"])
        // Stored and read back: the very same request.
        #expect(OutboundRequest(storedText: r.storedText) == r)
    }

    @Test func webhookUnsigned() throws {
        let r = try #require(try sender(.webhook, ["url": "http://127.0.0.1:9/x"]).request(for: up))
        #expect(headers(r) == ["Content-Type: application/json", "User-Agent: pingtxt-hub", "X-Pingtxt-Delivery: outbox-482"])
        #expect(r.bodyText.hasPrefix(#"{"id":"outbox-482","event":"monitor_up","#))
    }

    @Test(arguments: [
        (ChannelType.slack, "https://hooks.slack.com/services/T/B/x",
         #"{"text":"🔴 API is down — HTTP 503 from hub, since 10:02 UTC\nCause: HTTP 503\nFrom: hub\nSince: 2025-11-29T10:02:00Z (0 s ago)"}"#),
        (.mattermost, "https://mm.example.com/hooks/abc",
         #"{"text":"🔴 API is down — HTTP 503 from hub, since 10:02 UTC\nCause: HTTP 503\nFrom: hub\nSince: 2025-11-29T10:02:00Z (0 s ago)"}"#),
        (.discord, "https://discord.com/api/webhooks/1/x",
         #"{"content":"🔴 API is down — HTTP 503 from hub, since 10:02 UTC\nCause: HTTP 503\nFrom: hub\nSince: 2025-11-29T10:02:00Z (0 s ago)","#
            + #""allowed_mentions":{"parse":[]}}"#),
        (.teams, "https://prod-01.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x",
         #"{"type":"message","attachments":[{"contentType":"application/vnd.microsoft.card.adaptive","contentUrl":null,"content":{"#
            + #""$schema":"http://adaptivecards.io/schemas/adaptive-card.json","type":"AdaptiveCard","version":"1.2","body":["#
            + #"{"type":"TextBlock","text":"🔴 API is down — HTTP 503 from hub, since 10:02 UTC","weight":"Bolder","size":"Medium","#
            + #""color":"Attention","wrap":true},{"type":"TextBlock","text":"Cause: HTTP 503","wrap":true},"#
            + #"{"type":"TextBlock","text":"From: hub","wrap":true},"#
            + #"{"type":"TextBlock","text":"Since: 2025-11-29T10:02:00Z (0 s ago)","wrap":true}]}}]}"#),
    ])
    func chatWebhooks(type: ChannelType, url: String, body: String) throws {
        let r = try #require(try sender(type, ["webhook_url": .string(url)]).request(for: down))
        #expect(r.method == "POST" && r.url == url)
        #expect(headers(r) == ["Content-Type: application/json", "User-Agent: pingtxt-hub"])
        #expect(r.bodyText == body)
    }

    @Test func telegram() throws {
        let r = try #require(try sender(.telegram, ["bot_token": "123:ABC-def", "chat_id": -100_42]).request(for: up))
        #expect(r.url == "https://api.telegram.org/bot123:ABC-def/sendMessage")
        #expect(r.bodyText == #"{"chat_id":"-10042","text":"✅ API is up again after 5 min\nDown since 2025-11-29T10:02:00Z (5 min), "#
            + #"recovered at 2025-11-29T10:07:00Z.","link_preview_options":{"is_disabled":true}}"#)
    }

    @Test func ntfy() throws {
        var n = down
        n.publicURL = "https://hub.example"
        let r = try #require(try sender(.ntfy, ["url": "https://ntfy.sh/", "topic": "ops-alerts", "token": "tk_1"]).request(for: n))
        #expect(r.url == "https://ntfy.sh/")
        #expect(headers(r) == ["Content-Type: application/json", "User-Agent: pingtxt-hub", "Authorization: Bearer tk_1"])
        #expect(r.bodyText == #"{"topic":"ops-alerts","title":"🔴 API is down — HTTP 503 from hub, since 10:02 UTC","#
            + #""message":"Cause: HTTP 503\nFrom: hub\nSince: 2025-11-29T10:02:00Z (0 s ago)","priority":5,"tags":["rotating_light"],"#
            + #""click":"https://hub.example/incidents/7"}"#)
        // No public URL known: no click.
        let plain = try #require(try sender(.ntfy, ["url": "https://ntfy.sh", "topic": "ops-alerts"]).request(for: up))
        #expect(!plain.bodyText.contains("click") && headers(plain) == ["Content-Type: application/json", "User-Agent: pingtxt-hub"])
    }

    @Test func mobileBuildsNoHTTPRequest() throws {
        #expect(try sender(.mobile, ["users": []]).request(for: down) == nil)
    }

    /// (notification, config `to`, expected payload): subject = title, the
    /// text names the monitor, what failed, from where and since when.
    static let emails: [(Notification, JSON, String)] = [
        (down, ["to": "ops@example.com"],
         #"{"id":"outbox-481","to":["ops@example.com"],"subject":"🔴 API is down — HTTP 503 from hub, since 10:02 UTC","#
            + #""text":"🔴 API is down — HTTP 503 from hub, since 10:02 UTC\n\nMonitor: API\nCause: HTTP 503\nFrom: hub\n"#
            + #"Since: 2025-11-29T10:02:00Z (0 s ago)\nIncident: #7\n\n-- \nSent by \"pingtxt\" (pingtxt monitoring hub), notification outbox-481."}"#),
        (up, ["to": ["a@example.com", "b@example.org"]],
         #"{"id":"outbox-482","to":["a@example.com","b@example.org"],"subject":"✅ API is up again after 5 min","#
            + #""text":"✅ API is up again after 5 min\n\nMonitor: API\nDown since 2025-11-29T10:02:00Z (5 min), "#
            + #"recovered at 2025-11-29T10:07:00Z.\nIncident: #7\n\n-- \nSent by \"pingtxt\" (pingtxt monitoring hub), notification outbox-482."}"#),
        (.test(channelName: "Ops mail", at: 0, outboxID: 9, hubName: "Acme hub"), ["to": ["a@example.com"]],
         #"{"id":"outbox-9","to":["a@example.com"],"subject":"🔔 Test notification from Acme hub","#
            + #""text":"🔔 Test notification from Acme hub\n\nThis is a test notification for channel \"Ops mail\". "#
            + #"If you can read it, delivery works.\n\n-- \nSent by \"Acme hub\" (pingtxt monitoring hub), notification outbox-9."}"#),
    ]

    @Test(arguments: emails)
    func email(notification: Notification, config: JSON, payload: String) throws {
        let s = try sender(.email, config)
        #expect(s.request(for: notification) == nil, "email is not HTTP")
        let p = try #require(s.outboxPayload(for: notification))
        #expect(p.transport == "smtp")
        #expect(p.text == payload)
        #expect(s.outboxPayload(for: notification) == p, "pure: the same notification, the same payload")
    }

    static let invalid: [(ChannelType, JSON, String)] = [
        (ChannelType.webhook, JSON.object(JSONObject()), "config.url"),
        (.webhook, ["url": "ftp://x/y"], "config.url"),
        (.webhook, ["url": "https://x.example/", "headers": ["Bad Name": "v"]], "config.headers.Bad Name"),
        (.webhook, ["url": "https://x.example/", "headers": ["X-A": "a\r\nInjected: 1"]], "config.headers.X-A"),
        (.slack, ["url": "https://x.example/"], "config.webhook_url"),
        (.telegram, ["bot_token": "1:a"], "config.chat_id"),
        (.telegram, ["bot_token": "1 a/b", "chat_id": "1"], "config.bot_token"),
        (.ntfy, ["url": "https://ntfy.sh", "topic": "a/b"], "config.topic"),
        (.email, ["to": []], "config.to"),
        (.email, ["to": ["ok@example.com", "nope"]], "config.to[1]"),
        (.email, ["to": ["a;b@example.com"]], "config.to[0]"),
        (.email, ["to": ["ok@example.com", "jürgen@example.de"]], "config.to[1]"),
        (.mobile, ["users": ["x"]], "config.users[0]"),
    ]

    @Test(arguments: invalid)
    func invalidConfigs(type: ChannelType, config: JSON, field: String) {
        #expect(throws: JSONFieldError.self) { _ = try sender(type, config) }
        do { _ = try sender(type, config) } catch let e as JSONFieldError { #expect(e.field == field) } catch {}
    }

    @Test func secretsMasked() throws {
        let c = try Channel(id: 1, name: "n", type: .webhook, enabled: true, events: [.monitorDown], monitorIDs: [], reminderMinutes: 0,
                            config: JSONObject([("url", "https://x.example/"), ("secret", "s3cret")]))
        #expect(c.maskedConfig == JSONObject([("url", "https://x.example/"), ("secret", "********")]))
        let t = try Channel(id: 2, name: "t", type: .telegram, enabled: true, events: [], monitorIDs: [], reminderMinutes: 0,
                            config: JSONObject([("bot_token", "1:abc"), ("chat_id", "5")]))
        #expect(t.maskedConfig["bot_token"] == "********")
    }
}

/// Computed by hand with Python's hmac over the exact body above.
let expectedSignature = "9ab45b13a22e505accc66d83b1905246025bbae55e643cd874420e3816c4c1da"

@Suite struct ValidationExtraTests {
    @Test func urlsAndAddressesRefuseControlBytes() {
        #expect(throws: JSONFieldError.self) { _ = try sender(.webhook, ["url": "https://x.example/a\r\nHost: evil"]) }
        #expect(throws: JSONFieldError.self) { _ = try sender(.email, ["to": "a@b.example\r\nBcc: c@d.example"]) }
        #expect((try? sender(.email, ["to": "ops@example.com"])) != nil)
    }
}
