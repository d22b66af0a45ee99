import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Alerts through the running binary to loopback stand-ins of the chat
/// services, each answering as the real service does (FakeChatService):
/// a request of the wrong shape or with the wrong credential is refused
/// there, so an accepted down and up per service is the proof.
@Suite struct NotifyChatServicesTests {
    func waitUntil(_ what: String, timeoutMillis: Int = 20_000, _ done: () -> Bool) {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
            usleep(50_000)
        }
    }

    func channel(_ hub: MonitoringHub, _ name: String, _ type: String, _ config: JSON) throws -> Int64 {
        let created = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": .string(name), "type": .string(type), "events": ["monitor_down", "monitor_up"], "config": config,
        ]), 201)
        return try #require(created["id"]?.intValue)
    }

    /// The text each service shows, from an accepted request.
    func text(_ r: FakeChatService.Received) -> String {
        guard let j = r.json else { return "" }
        for key in ["text", "content", "message"] { if let s = j[key]?.stringValue { return (j["title"]?.stringValue ?? "") + s } }
        let blocks = j["attachments"]?.arrayValue?.first?["content"]?["body"]?.arrayValue ?? []
        return blocks.compactMap { $0["text"]?.stringValue }.joined(separator: "\n")
    }

    @Test func everyChatServiceAcceptsTheDownAndTheUpAlert() throws {
        let teams = try FakeChatService(.teams, secret: "sigE2E")
        let slack = try FakeChatService(.slack, secret: "slackE2E")
        let discord = try FakeChatService(.discord, secret: "discordE2E")
        let telegram = try FakeChatService(.telegram(chatID: "-10042"), secret: "4242:bot-E2E")
        let ntfy = try FakeChatService(.ntfy, secret: "tk_e2e")
        let mattermost = try FakeChatService(.mattermost, secret: "mmE2E")
        // Telegram's flood control answers the first message.
        telegram.rateLimitNext(1)
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()

        _ = try channel(hub, "teams", "teams", ["webhook_url": .string(teams.channelURL)])
        _ = try channel(hub, "slack", "slack", ["webhook_url": .string(slack.channelURL)])
        let gone = try channel(hub, "slack, deleted channel", "slack", ["webhook_url": .string(slack.goneChannelURL)])
        _ = try channel(hub, "discord", "discord", ["webhook_url": .string(discord.channelURL)])
        let telegramID = try channel(hub, "telegram", "telegram",
                                     ["bot_token": .string(telegram.secret), "chat_id": -10042, "api_url": .string(telegram.channelURL)])
        _ = try channel(hub, "ntfy", "ntfy", ["url": .string(ntfy.channelURL), "topic": "ops", "token": .string(ntfy.secret)])
        _ = try channel(hub, "mattermost", "mattermost", ["webhook_url": .string(mattermost.channelURL)])

        let (id, _) = try hub.createChecked(httpMonitor("<!channel> & co", target.healthURL))
        target.setStatus(503)
        try hub.check(id)
        let chats = [teams, slack, discord, ntfy, mattermost]
        waitUntil("the down alerts") { chats.allSatisfy { $0.accepted.count == 1 } && telegram.received.count == 1 }
        target.setStatus(200)
        try hub.check(id)
        waitUntil("the up alerts and Telegram's retry", timeoutMillis: 30_000) {
            chats.allSatisfy { $0.accepted.count == 2 } && telegram.accepted.count == 2
        }
        let incident = try #require(try hub.incidents(id).first?["id"]?.intValue)

        for service in chats + [telegram] {
            let texts = service.accepted.map(text)
            #expect(texts.contains { $0.contains("is down") } && texts.contains { $0.contains("is up again") },
                    "\(service.service): \(texts)")
        }
        // Names escaped for Slack's and Mattermost's markup; Discord mentions off.
        #expect(slack.accepted.first?.json?["text"]?.stringValue?.hasPrefix("🔴 &lt;!channel&gt; &amp; co is down — HTTP 503") == true)
        #expect(mattermost.accepted.first?.json?["text"]?.stringValue?.hasPrefix("🔴 &lt;!channel&gt; &amp; co is down") == true)
        #expect(discord.accepted.allSatisfy { $0.json?["allowed_mentions"] == ["parse": []] })
        #expect(teams.accepted.first.map(text)?.hasPrefix("🔴 <!channel> & co is down") == true)
        // ntfy opens the incident's page on the hub.
        let page = "http://127.0.0.1:\(hub.hub.port)/incidents/\(incident)"
        #expect(ntfy.accepted.map { $0.json?["click"]?.stringValue } == [page, page])

        // Telegram: the 429's retry_after (2 s) was waited out (stand-in's own clock).
        let first = try #require(telegram.received.first)
        #expect(first.status == 429)
        let retried = try #require(telegram.received.dropFirst().first { text($0).contains("is down") })
        #expect(retried.accepted && retried.atNanos >= first.atNanos + 2_000_000_000)
        #expect(telegram.accepted.allSatisfy { $0.json?["link_preview_options"] == ["is_disabled": true] })

        // The deleted Slack channel: failed at once, with Slack's reason.
        let failed = try hub.waitFor("the failures", { $0["delivery"]?["failed"] == 2 }) {
            try expectJSON(try hub.call("GET", "/api/channels/\(gone)"))
        }
        #expect(failed["delivery"]?["last_error"] == "HTTP 404: channel_not_found")
        let tg = try expectJSON(try hub.call("GET", "/api/channels/\(telegramID)"))
        #expect(tg["delivery"]?["sent"] == 2 && tg["delivery"]?["failed"] == 0)
        #expect(tg["config"]?["bot_token"] == "********" && tg["config"]?["api_url"] == .string(telegram.channelURL))
    }

    @Test func headerValuesWithControlCharactersAreRefusedAtSaveTime() throws {
        let hub = try MonitoringHub()
        expectError(try hub.call("POST", "/api/channels", json: [
            "name": "n", "type": "ntfy", "config": ["url": "https://ntfy.sh", "topic": "ops", "token": "tk_1\r\nX-Evil: 1"],
        ]), 400, field: "config.token")
        expectError(try hub.call("POST", "/api/channels", json: [
            "name": "w", "type": "webhook", "config": ["url": "https://x.example/", "headers": ["X-Team": "ops\nX-Evil: 1"]],
        ]), 400, field: "config.headers.X-Team")
        expectError(try hub.call("POST", "/api/channels", json: [
            "name": "w", "type": "webhook", "config": ["url": "https://x.example/", "headers": ["X(Team)": "ops"]],
        ]), 400, field: "config.headers.X(Team)")
        expectError(try hub.call("POST", "/api/channels", json: [
            "name": "t", "type": "telegram", "config": ["bot_token": "1:a", "chat_id": "5", "api_url": "http://tg.example"],
        ]), 400, field: "config.api_url")
    }
}
