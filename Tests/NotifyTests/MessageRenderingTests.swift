import Store
import Testing
import Core
@testable import Notify

/// SPEC §15: every channel type renders a message (event `message`) with
/// the sender's texts and link; PagerDuty gets a change event that pages
/// no one, Opsgenie an alert of its own, a phone category MESSAGE.
@Suite struct MessageRenderingTests {
    static let link = "https://example.com/runbook"

    static var message: Notification {
        var n = Notification(kind: .alert, event: .message, monitorID: nil, monitorName: "", incidentID: nil, cause: "",
                             locations: [], at: 1_764_410_000, since: 1_764_410_000, outboxID: 9, hubName: "pingtxt", hubID: "h1")
        n.priority = 3
        n.eventID = 77
        n.publicURL = "https://hub.example.com"
        n.message = Notification.Message(title: "Backup <done> & @channel", body: "42 GB\nin 8 min", url: link)
        return n
    }

    static let configs: [(ChannelType, JSON)] = [
        (.webhook, ["url": "https://example.com/hook"]),
        (.slack, ["webhook_url": "https://hooks.slack.com/services/T/B/x"]),
        (.mattermost, ["webhook_url": "https://mm.example.com/hooks/x"]),
        (.discord, ["webhook_url": "https://discord.com/api/webhooks/1/x"]),
        (.teams, ["webhook_url": "https://example.webhook.office.com/x"]),
        (.telegram, ["bot_token": "1:abc", "chat_id": "5"]),
        (.googlechat, ["webhook_url": "https://chat.googleapis.com/v1/spaces/A/messages?key=k&token=t"]),
        (.matrix, ["homeserver": "https://matrix.example.org", "access_token": "t", "room_id": "!r:example.org"]),
        (.ntfy, ["url": "https://ntfy.example.com", "topic": "ops"]),
        (.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey)]),
        (.gotify, ["url": "https://push.example.com", "token": "tok"]),
        (.pagerduty, ["routing_key": .string(Paging.routingKey)]),
        (.opsgenie, ["api_key": "key"]),
    ]

    @Test func everyHTTPTypeCarriesTheTitleBodyAndLink() throws {
        for (type, config) in Self.configs {
            let r = try #require(try Paging.sender(type, config).request(for: Self.message), "\(type)")
            let text = r.bodyText
            #expect(text.contains("Backup"), "\(type): \(text)")
            #expect(text.contains("42 GB"), "\(type): \(text)")
            #expect(text.contains(Self.link), "\(type) links where the sender said: \(text)")
            #expect(!text.contains("Acknowledge"), "\(type): a message has nothing to acknowledge")
        }
        #expect(Set(Self.configs.map(\.0)) == Set(ChannelType.allCases).subtracting([.email, .mobile]))
    }

    @Test func pagingServices() throws {
        let pd = try #require(try Paging.sender(.pagerduty, ["routing_key": .string(Paging.routingKey)]).request(for: Self.message))
        #expect(pd.url == "https://events.pagerduty.com/v2/change/enqueue")
        let body = try JSON.parse(pd.bodyText)
        #expect(body["event_action"] == nil && body["payload"]?["summary"] == "Backup <done> & @channel")
        let og = try JSON.parse(try #require(try Paging.sender(.opsgenie, ["api_key": "key"]).request(for: Self.message)).bodyText)
        #expect(og["alias"] == "pingtxt-h1-message-77" && og["priority"] == "P4")
        #expect(og["tags"]?.arrayValue?.contains("message") == true)
    }

    @Test func chatMarkupIsEscaped() throws {
        let slack = try JSON.parse(try #require(try Paging.sender(.slack, ["webhook_url": "https://hooks.slack.com/services/T/B/x"])
            .request(for: Self.message)).bodyText)["text"]?.stringValue ?? ""
        #expect(slack.contains("&lt;done&gt; &amp;") && !slack.contains("<done>"))
    }

    @Test func emailAndPhone() throws {
        let payload = try #require(try Paging.sender(.email, ["to": "ops@example.com"]).outboxPayload(for: Self.message))
        let mail = try JSON.parse(payload.text)
        #expect(mail["subject"]?.stringValue?.contains("Backup") == true)
        let text = mail["text"]?.stringValue ?? ""
        #expect(text.contains("42 GB\nin 8 min") && text.contains("Open: \(Self.link)") && !text.contains("Monitor:"))

        let push = PushMessages.alert(Self.message, to: .init(platform: "ios", token: "t"), hubID: "h1")
        #expect(push["payload"]?["aps"]?["category"] == "MESSAGE")
        #expect(push["payload"]?["aps"]?["alert"]?["title"] == "Backup <done> & @channel")
        #expect(push["payload"]?["aps"]?["thread-id"] == "messages" && push["collapse_id"] == "message-77")
        #expect(push["payload"]?["url"]?.stringValue == Self.link && push["payload"]?["alarm"] == nil)
        let alarm = PushMessages.alert(Self.message, to: .init(platform: "ios", token: "t"), hubID: "h1", alarm: true)
        #expect(alarm["payload"]?["alarm"] == true && alarm["payload"]?["aps"]?["interruption-level"] == "time-sensitive")
        #expect(alarm["payload"]?["priority"] == 3 && alarm["priority"] == 10)
        let quiet = PushMessages.quieted(alarm)
        #expect(quiet["payload"]?["alarm"] == nil && quiet["payload"]?["aps"]?["interruption-level"] == "passive")
    }
}
