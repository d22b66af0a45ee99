import Store
import Testing
import Core
@testable import Notify

/// SPEC §10's tap-through link in every channel: the incident's page, else
/// the monitor's, else /agents; never cut with the text.
@Suite struct TapThroughLinkTests {
    static let hub = "https://hub.example.com"
    static let incident = "https://hub.example.com/incidents/7"

    static var linked: Notification {
        var n = Paging.down
        n.publicURL = hub + "/"
        return n
    }

    func body(_ type: ChannelType, _ config: JSON, _ n: Notification = linked) throws -> JSON {
        try JSON.parse(try #require(try Paging.sender(type, config).request(for: n)).bodyText)
    }

    @Test func pageOfIncidentMonitorOrAgents() {
        var n = Self.linked
        #expect(n.pageURL == Self.incident)
        n.incidentID = nil
        #expect(n.pageURL == Self.hub + "/monitors/12")
        var agent = Paging.agentOffline
        agent.publicURL = Self.hub
        #expect(agent.pageURL == Self.hub + "/agents")
        n.publicURL = ""
        #expect(n.pageURL == nil)
    }

    @Test func chatServicesEndWithTheLink() throws {
        let slack = try body(.slack, ["webhook_url": "https://hooks.slack.com/services/T/B/x"])["text"]?.stringValue
        #expect(slack?.hasSuffix("\n" + Self.incident) == true)
        let mattermost = try body(.mattermost, ["webhook_url": "https://mm.example.com/hooks/x"])["text"]?.stringValue
        #expect(mattermost?.hasSuffix("\n" + Self.incident) == true)
        let telegram = try body(.telegram, ["bot_token": "1:abc", "chat_id": "5"])["text"]?.stringValue
        #expect(telegram?.hasSuffix("\n" + Self.incident) == true)
        // Discord: in angle brackets, so no preview of the hub's page is embedded.
        let discord = try body(.discord, ["webhook_url": "https://discord.com/api/webhooks/1/x"])["content"]?.stringValue
        #expect(discord?.hasSuffix("\n<\(Self.incident)>") == true)
        let chat = try body(.googlechat, ["webhook_url": "https://chat.googleapis.com/v1/spaces/A/messages?key=k&token=t"])
        #expect(chat["text"]?.stringValue?.hasSuffix("\n" + Self.incident) == true)
        let matrix = try body(.matrix, ["homeserver": "https://matrix.example.org", "access_token": "t", "room_id": "!r:example.org"])
        #expect(matrix["body"]?.stringValue?.hasSuffix("\n" + Self.incident) == true)
        #expect(matrix["formatted_body"]?.stringValue?.hasSuffix("<br><a href=\"\(Self.incident)\">\(Self.incident)</a>") == true)
        let teams = try body(.teams, ["webhook_url": "https://example.webhook.office.com/x"])
        let action = teams["attachments"]?.arrayValue?.first?["content"]?["actions"]?.arrayValue?.first
        #expect(action?["type"] == "Action.OpenUrl" && action?["url"]?.stringValue == Self.incident)
    }

    @Test func aLongTextIsCutButNeverTheLink() throws {
        var n = Self.linked
        n.cause = String(repeating: "x", count: 5_000)
        let telegram = try #require(try body(.telegram, ["bot_token": "1:abc", "chat_id": "5"], n)["text"]?.stringValue)
        #expect(telegram.utf16.count <= TelegramChannel.maxCharacters)
        #expect(telegram.hasSuffix("…\n" + Self.incident))
        let discord = try #require(try body(.discord, ["webhook_url": "https://discord.com/api/webhooks/1/x"], n)["content"]?.stringValue)
        #expect(discord.utf16.count <= DiscordChannel.maxCharacters && discord.hasSuffix("<\(Self.incident)>"))
    }

    @Test func serviceFieldsForTheLink() throws {
        let ntfy = try body(.ntfy, ["url": "https://ntfy.example.com", "topic": "ops"])
        #expect(ntfy["click"]?.stringValue == Self.incident)
        let pushover = try body(.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey)])
        #expect(pushover["url"]?.stringValue == Self.incident && pushover["url_title"]?.stringValue == "Open in pingtxt")
        let gotify = try body(.gotify, ["url": "https://push.example.com", "token": "tok"])
        #expect(gotify["extras"]?["client::notification"]?["click"]?["url"]?.stringValue == Self.incident)
        let pd = try body(.pagerduty, ["routing_key": .string(Paging.routingKey)])
        #expect(pd["links"]?.arrayValue?.first?["href"]?.stringValue == Self.incident && pd["client_url"]?.stringValue == Self.incident)
        let og = try body(.opsgenie, ["api_key": "key"])
        #expect(og["details"]?["url"]?.stringValue == Self.incident)
        let webhook = try body(.webhook, ["url": "https://example.com/hook"])
        #expect(webhook["url"]?.stringValue == Self.incident)
    }

    @Test func emailHasTheLinkOnItsOwnLine() throws {
        let payload = try #require(try Paging.sender(.email, ["to": "ops@example.com"]).outboxPayload(for: Self.linked))
        let text = try #require(try JSON.parse(payload.text)["text"]?.stringValue)
        #expect(text.contains("\n\nOpen: \(Self.incident)\n"))
    }

    /// Without a public URL nothing links (and the requests stay as they were).
    @Test func noPublicURLNoLink() throws {
        let slack = try body(.slack, ["webhook_url": "https://hooks.slack.com/services/T/B/x"], Paging.down)["text"]?.stringValue
        #expect(slack == Paging.down.text)
        let pushover = try body(.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey)], Paging.down)
        #expect(pushover["url"] == nil)
    }
}
