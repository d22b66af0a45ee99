import Store
import Testing
import Core
import Notify

/// What each chat service's payload does with hostile or long text, and
/// the config checks that keep header values clean (pure tables).
@Suite struct ChatPayloadTests {
    func named(_ name: String, cause: String = "HTTP 503") -> Notification {
        var n = down
        n.monitorName = name
        n.cause = cause
        return n
    }

    func body(_ type: ChannelType, _ config: JSON, _ n: Notification) throws -> JSON {
        let r = try #require(try sender(type, config).request(for: n))
        return try JSON.parse(r.body)
    }

    static let slackURL: JSON = ["webhook_url": "https://hooks.slack.com/services/T/B/x"]
    static let mattermostURL: JSON = ["webhook_url": "https://mm.example.com/hooks/abc"]

    /// (monitor name, Slack's text first line, Mattermost's): `&`, `<`, `>`
    /// escaped everywhere; Mattermost's group mentions get a zero width
    /// joiner after the `@` (any case), other `@`s are left alone.
    static let escapes: [(String, String, String)] = [
        ("<!channel> & co", "🔴 &lt;!channel&gt; &amp; co is down", "🔴 &lt;!channel&gt; &amp; co is down"),
        ("<@U024BE7LH> <https://evil.example|bank>", "🔴 &lt;@U024BE7LH&gt; &lt;https://evil.example|bank&gt; is down",
         "🔴 &lt;@U024BE7LH&gt; &lt;https://evil.example|bank&gt; is down"),
        ("@channel @Here @EVERYONE @all ops@example.com", "🔴 @channel @Here @EVERYONE @all ops@example.com is down",
         "🔴 @\u{200D}channel @\u{200D}Here @\u{200D}EVERYONE @\u{200D}all ops@example.com is down"),
        ("a&amp;b", "🔴 a&amp;amp;b is down", "🔴 a&amp;amp;b is down"),
    ]

    @Test(arguments: escapes)
    func slackAndMattermostEscapeNames(name: String, slack: String, mattermost: String) throws {
        let n = named(name, cause: "<!here> >_<")
        let s = try #require(try body(.slack, Self.slackURL, n)["text"]?.stringValue)
        #expect(s.hasPrefix(slack + " — &lt;!here&gt; &gt;_&lt; from hub, since 10:02 UTC\n"))
        let m = try #require(try body(.mattermost, Self.mattermostURL, n)["text"]?.stringValue)
        #expect(m.hasPrefix(mattermost + " — &lt;!here&gt; &gt;_&lt; from hub"))
        #expect(m.contains("Cause: &lt;!here&gt; &gt;_&lt;\n"))
    }

    @Test func agentNamesAreEscapedToo() throws {
        let n = Notification(kind: .alert, event: .agentOffline, monitorID: nil, monitorName: "<!channel>@here", incidentID: nil,
                             cause: "", locations: ["<!channel>@here"], at: 1_764_410_520, since: 1_764_410_520, outboxID: 1)
        #expect(try body(.slack, Self.slackURL, n)["text"]?.stringValue?.hasPrefix("🔴 Agent &lt;!channel&gt;@here is offline") == true)
        #expect(try body(.mattermost, Self.mattermostURL, n)["text"]?.stringValue?
            .hasPrefix("🔴 Agent &lt;!channel&gt;@\u{200D}here is offline") == true)
    }

    /// (type, config, the text's JSON key, limit in UTF-16 units): a cause
    /// far over the limit is cut to it, whole characters only, with `…`.
    static let cuts: [(ChannelType, JSON, String, Int)] = [
        (.slack, slackURL, "text", 40_000),
        (.mattermost, mattermostURL, "text", 16_383),
        (.discord, ["webhook_url": "https://discord.com/api/webhooks/1/x"], "content", 2_000),
        (.telegram, ["bot_token": "1:a", "chat_id": "5"], "text", 4_096),
    ]

    @Test(arguments: cuts)
    func longTextIsCutToTheLimit(type: ChannelType, config: JSON, key: String, limit: Int) throws {
        // Emoji are two UTF-16 units: a cut in the middle of one would leave half a character.
        let text = try #require(try body(type, config, named("API", cause: String(repeating: "x🔴&", count: 20_000)))[key]?.stringValue)
        #expect(text.utf16.count <= limit && text.utf16.count >= limit - 6)
        #expect(text.hasSuffix("…"))
        #expect(text.hasPrefix("🔴 API is down — x🔴"))
        // Short texts are left whole.
        let short = try #require(try body(type, config, down)[key]?.stringValue)
        #expect(!short.hasSuffix("…") && short.hasSuffix("(0 s ago)"))
    }

    @Test func slackCutNeverSplitsAnEntity() throws {
        let text = try #require(try body(.slack, Self.slackURL, named("API", cause: String(repeating: "&", count: 50_000)))["text"]?
            .stringValue)
        #expect(text.utf16.count <= 40_000)
        #expect(text.hasSuffix("&amp;…"), "the cut falls between entities")
    }

    @Test func discordSuppressesEveryMention() throws {
        let j = try body(.discord, ["webhook_url": "https://discord.com/api/webhooks/1/x"], named("@everyone <@&123>"))
        #expect(j["allowed_mentions"] == ["parse": []])
        #expect(j["content"]?.stringValue?.hasPrefix("🔴 @everyone <@&123> is down") == true)
    }

    @Test func ntfyMessageIsCutToFourKilobytes() throws {
        let j = try body(.ntfy, ["url": "https://ntfy.sh", "topic": "ops"], named("API", cause: String(repeating: "é", count: 5_000)))
        let message = try #require(j["message"]?.stringValue)
        #expect(message.utf8.count <= 4_096 && message.utf8.count > 4_080 && message.hasSuffix("…"))
    }

    @Test func teamsCardStaysUnder28KB() throws {
        let config: JSON = ["webhook_url": "https://prod-01.westus.logic.azure.com/workflows/a/triggers/manual/paths/invoke?sig=x"]
        let long = named("API", cause: String(repeating: "\"x\"🔴\n", count: 20_000))
        let r = try #require(try sender(.teams, config).request(for: long))
        #expect(r.body.count <= 28_000 && r.body.count > 27_000, "cut close to the limit, not far below it")
        let j = try JSON.parse(r.body)
        let blocks = try #require(j["attachments"]?.arrayValue?.first?["content"]?["body"]?.arrayValue)
        #expect(blocks.first?["weight"] == "Bolder")
        let last = try #require(blocks.last?["text"]?.stringValue)
        #expect(last.hasSuffix("…"))
        // Every other event shape builds a valid card with a colour.
        for (n, color) in [(up, "Good"), (Notification.test(channelName: "x", at: 0, outboxID: 1), "Default")] {
            let card = try #require(try sender(.teams, config).request(for: n)).body
            #expect(try JSON.parse(card)["attachments"]?.arrayValue?.first?["content"]?["body"]?.arrayValue?.first?["color"]
                == .string(color))
        }
    }

    /// (notification, public URL, page): incident, else monitor, else agents;
    /// a test links to the notify page; no public URL, no link.
    static let pages: [(Notification, String, String?)] = [
        (down, "https://hub.example", "https://hub.example/incidents/7"),
        (down, "https://hub.example/", "https://hub.example/incidents/7"),
        (Notification(kind: .alert, event: .monitorDegraded, monitorID: 12, monitorName: "API", incidentID: nil, cause: "",
                      locations: [], at: 0, since: 0, outboxID: 1), "http://127.0.0.1:8080", "http://127.0.0.1:8080/monitors/12"),
        (Notification(kind: .alert, event: .agentOnline, monitorID: nil, monitorName: "eu-1", incidentID: nil, cause: "",
                      locations: ["eu-1"], at: 0, since: 0, outboxID: 1), "https://hub.example", "https://hub.example/agents"),
        (.test(channelName: "ops", at: 0, outboxID: 1), "https://hub.example", "https://hub.example/notify"),
        (down, "", nil),
    ]

    @Test(arguments: pages)
    func pageURL(notification: Notification, publicURL: String, page: String?) {
        var n = notification
        n.publicURL = publicURL
        #expect(n.pageURL == page)
    }

    @Test func telegramAPIURL() throws {
        let base: [(String, JSON)] = [("bot_token", "123:abc"), ("chat_id", "5")]
        func url(_ api: JSON?) throws -> String? {
            var o = JSONObject(base)
            if let api { o["api_url"] = api }
            return try sender(.telegram, .object(o)).request(for: down)?.url
        }
        #expect(try url(nil) == "https://api.telegram.org/bot123:abc/sendMessage")
        #expect(try url("") == "https://api.telegram.org/bot123:abc/sendMessage")
        #expect(try url("https://tg.example/api/") == "https://tg.example/api/bot123:abc/sendMessage")
        #expect(try url("http://127.0.0.1:8081") == "http://127.0.0.1:8081/bot123:abc/sendMessage")
        #expect(try url("http://[::1]:8081") == "http://[::1]:8081/bot123:abc/sendMessage")
        #expect(try url("http://localhost:8081") == "http://localhost:8081/bot123:abc/sendMessage")
    }

    /// Refused at save time, naming the field.
    static let invalid: [(ChannelType, JSON, String)] = [
        (.telegram, ["bot_token": "1:a", "chat_id": "1", "api_url": "http://tg.example"], "config.api_url"),
        (.telegram, ["bot_token": "1:a", "chat_id": "1", "api_url": "http://10.0.0.1:8081"], "config.api_url"),
        (.telegram, ["bot_token": "1:a", "chat_id": "1", "api_url": "https://tg.example/?x=1"], "config.api_url"),
        (.telegram, ["bot_token": "1:a", "chat_id": "1", "api_url": "ftp://tg.example"], "config.api_url"),
        (.telegram, ["bot_token": "1:a", "chat_id": "1", "api_url": 5], "config.api_url"),
        (.ntfy, ["url": "https://ntfy.sh", "topic": "a", "token": "tk_1\r\nX-Evil: 1"], "config.token"),
        (.ntfy, ["url": "https://ntfy.sh", "topic": "a", "token": "tk_1\n"], "config.token"),
        (.ntfy, ["url": "https://ntfy.sh", "topic": "a", "token": "tk\u{7F}"], "config.token"),
        (.ntfy, ["url": "https://ntfy.sh", "topic": "a", "token": "tk\u{0}"], "config.token"),
        (.ntfy, ["url": "https://ntfy.sh", "topic": "a", "token": "tk 1"], "config.token"),
        (.ntfy, ["url": "https://ntfy.sh", "topic": "a", "token": "tké"], "config.token"),
        (.webhook, ["url": "https://x.example/", "headers": ["X-A": "a\rb"]], "config.headers.X-A"),
        (.webhook, ["url": "https://x.example/", "headers": ["X-A": "a\u{0}b"]], "config.headers.X-A"),
        (.webhook, ["url": "https://x.example/", "headers": ["X-A": "a\tb"]], "config.headers.X-A"),
        (.webhook, ["url": "https://x.example/", "headers": ["X-A": "a\u{7F}"]], "config.headers.X-A"),
        (.webhook, ["url": "https://x.example/", "headers": ["X(A)": "v"]], "config.headers.X(A)"),
        (.webhook, ["url": "https://x.example/", "headers": ["X/A": "v"]], "config.headers.X/A"),
        (.webhook, ["url": "https://x.example/", "headers": ["X\"A": "v"]], "config.headers.X\"A"),
        (.webhook, ["url": "https://x.example/", "headers": ["Ä": "v"]], "config.headers.Ä"),
        (.webhook, ["url": "https://x.example/", "headers": ["": "v"]], "config.headers."),
    ]

    @Test(arguments: invalid)
    func refusedConfigs(type: ChannelType, config: JSON, field: String) {
        do {
            _ = try sender(type, config)
            Issue.record("accepted \(config.text)")
        } catch let e as JSONFieldError {
            #expect(e.field == field)
            #expect(e.message.hasPrefix(field))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func acceptedConfigs() throws {
        let ok = try sender(.webhook, ["url": "https://x.example/", "headers": ["X-Api-Key!#$%&'*+.^_`|~": "v é"]])
        #expect(try #require(ok.request(for: down)).headers.last?.value == "v é")
        _ = try sender(.ntfy, ["url": "https://ntfy.sh", "topic": "a", "token": "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2"])
        _ = try sender(.ntfy, ["url": "https://ntfy.sh", "topic": "a", "token": ""])
    }
}
