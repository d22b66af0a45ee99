import Store
import Testing
import Core
@testable import Notify

/// SPEC §10: a `monitor_down` with an acknowledge link shows it in every
/// channel but the app's: e-mail and chat as a line, ntfy as an action
/// button, webhooks as `acknowledge_url`, Teams as a second button, paging
/// services among their links; never cut with the text.
@Suite struct AckLinkRenderingTests {
    static let ack = "https://hub.example.com/ack/" + String(repeating: "a", count: 43)
    static let page = "https://hub.example.com/incidents/7"

    static var down: Notification {
        var n = Paging.down
        n.publicURL = "https://hub.example.com"
        n.acknowledgeURL = ack
        return n
    }

    func body(_ type: ChannelType, _ config: JSON, _ n: Notification = down) throws -> JSON {
        try JSON.parse(try #require(try Paging.sender(type, config).request(for: n)).bodyText)
    }

    @Test func chatServicesEndWithPageThenAcknowledge() throws {
        let tail = "\n" + Self.page + "\nAcknowledge: " + Self.ack
        #expect(try body(.slack, ["webhook_url": "https://hooks.slack.com/services/T/B/x"])["text"]?.stringValue?.hasSuffix(tail) == true)
        #expect(try body(.mattermost, ["webhook_url": "https://mm.example.com/hooks/x"])["text"]?.stringValue?.hasSuffix(tail) == true)
        #expect(try body(.telegram, ["bot_token": "1:abc", "chat_id": "5"])["text"]?.stringValue?.hasSuffix(tail) == true)
        let chat = try body(.googlechat, ["webhook_url": "https://chat.googleapis.com/v1/spaces/A/messages?key=k&token=t"])
        #expect(chat["text"]?.stringValue?.hasSuffix(tail) == true)
        let discord = try body(.discord, ["webhook_url": "https://discord.com/api/webhooks/1/x"])["content"]?.stringValue
        #expect(discord?.hasSuffix("\n<\(Self.page)>\nAcknowledge: <\(Self.ack)>") == true)
        let matrix = try body(.matrix, ["homeserver": "https://matrix.example.org", "access_token": "t", "room_id": "!r:example.org"])
        #expect(matrix["body"]?.stringValue?.hasSuffix("\nAcknowledge: " + Self.ack) == true)
        #expect(matrix["formatted_body"]?.stringValue?.hasSuffix("<a href=\"\(Self.ack)\">Acknowledge</a>") == true)
        let teams = try body(.teams, ["webhook_url": "https://example.webhook.office.com/x"])
        let actions = teams["attachments"]?.arrayValue?.first?["content"]?["actions"]?.arrayValue ?? []
        #expect(actions.map { $0["title"] } == ["Open in pingtxt", "Acknowledge"])
        #expect(actions.last?["url"]?.stringValue == Self.ack)
    }

    @Test func theLinkSurvivesALongText() throws {
        var n = Self.down
        n.cause = String(repeating: "x", count: 5_000)
        let telegram = try #require(try body(.telegram, ["bot_token": "1:abc", "chat_id": "5"], n)["text"]?.stringValue)
        #expect(telegram.utf16.count <= TelegramChannel.maxCharacters)
        #expect(telegram.hasSuffix("Acknowledge: " + Self.ack))
        let pushover = try #require(try body(.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey)], n)["message"]?.stringValue)
        #expect(pushover.hasSuffix("\nAcknowledge: " + Self.ack))
        #expect(pushover.unicodeScalars.count <= PushoverChannel.messageLimit)
    }

    @Test func webhookNtfyMailAndPagingServices() throws {
        let hook = try body(.webhook, ["url": "https://example.com/hook"])
        #expect(hook["acknowledge_url"]?.stringValue == Self.ack)
        let ntfy = try body(.ntfy, ["url": "https://ntfy.example.com", "topic": "ops"])
        #expect(ntfy["actions"] == [["action": "view", "label": "Acknowledge", "url": .string(Self.ack), "clear": true]])
        #expect(EmailChannel.text(for: Self.down).contains("\nAcknowledge: " + Self.ack + "\n"))
        let pd = try body(.pagerduty, ["routing_key": .string(Paging.routingKey)])
        #expect(pd["links"]?.arrayValue?.last?["href"]?.stringValue == Self.ack)
        let gotify = try body(.gotify, ["url": "https://gotify.example.com", "token": "t"])
        #expect(gotify["message"]?.stringValue?.hasSuffix("Acknowledge: " + Self.ack) == true)
    }

    @Test func noLinkNoMention() throws {
        var up = Paging.up
        up.publicURL = "https://hub.example.com"
        #expect(try body(.webhook, ["url": "https://example.com/hook"], up)["acknowledge_url"] == nil)
        #expect(try body(.ntfy, ["url": "https://ntfy.example.com", "topic": "ops"], up)["actions"] == nil)
        #expect(!EmailChannel.text(for: up).contains("Acknowledge"))
    }
}
