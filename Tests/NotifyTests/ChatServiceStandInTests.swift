import Testing
import Core
import Net
import Notify
import Store
import Synchronization
import TestSupport

/// Each channel type's request, sent by the real HTTP transport to a
/// loopback stand-in that answers as the service does (documented shape and
/// credential), and the verdict the transport reports for the answer.
@Suite struct ChatServiceStandInTests {
    final class Client {
        let engine = ClientEngine(loops: 1, maxConcurrent: 8)
        deinit { engine.shutdown() }

        /// One attempt of a stored payload, as the delivery worker makes it.
        func attempt(_ payload: OutboxPayload) -> AttemptVerdict {
            var row = OutboxRecord(channelID: 1, eventID: nil, kind: "alert", transport: payload.transport, payload: payload.text,
                                   nextAttemptAt: 0)
            row.id = 1
            let done = Semaphore()
            let result = LockedVerdict()
            HTTPTransport(engine: engine, timeoutMillis: 5_000).deliver([row]) { _, v in
                result.set(v)
                done.post()
            }
            done.wait()
            return result.value ?? .permanent(error: "no report")
        }

        func attempt(_ type: ChannelType, _ config: JSON, _ n: Notification = down) throws -> AttemptVerdict {
            attempt(try #require(try sender(type, config).outboxPayload(for: n)))
        }

        func attempt(raw body: String, to url: String, service: String) -> AttemptVerdict {
            let r = OutboundRequest(url: url, headers: [("Content-Type", "application/json")], body: Array(body.utf8), service: service)
            return attempt(OutboxPayload(transport: "http", text: r.storedText))
        }
    }

    var longCause: Notification {
        var n = down
        n.cause = String(repeating: "timeout 🔴 ", count: 3_000)
        return n
    }

    @Test func teamsTakesAnAdaptiveCardAndRefusesAMessageCard() throws {
        let teams = try FakeChatService(.teams, secret: "sig0")
        let client = Client()
        #expect(try client.attempt(.teams, ["webhook_url": .string(teams.channelURL)]) == .sent)
        #expect(try client.attempt(.teams, ["webhook_url": .string(teams.channelURL)], longCause) == .sent, "cut below 28 KB")
        #expect(teams.received.map(\.status) == [202, 202])
        let refused = AttemptVerdict.permanent(error: "HTTP 400: The request content is not an Adaptive Card message.")
        let messageCard = #"{"@type":"MessageCard","@context":"https://schema.org/extensions","summary":"s","title":"t","text":"x"}"#
        #expect(client.attempt(raw: messageCard, to: teams.channelURL, service: "teams") == refused)
        let wrongType = #"{"type":"message","attachments":[{"contentType":"application/vnd.microsoft.teams.card.o365connector","#
            + #""content":{"type":"AdaptiveCard","version":"1.2","body":[{"type":"TextBlock","text":"x"}]}}]}"#
        #expect(client.attempt(raw: wrongType, to: teams.channelURL, service: "teams") == refused)
        let wrongSig = teams.channelURL.replacingSuffix("sig0", with: "nope")
        #expect(try client.attempt(.teams, ["webhook_url": .string(wrongSig)])
            == .permanent(error: "HTTP 401: The request must be authenticated."))
    }

    @Test func slackAcceptsTextAndSaysWhyItRefuses() throws {
        let slack = try FakeChatService(.slack, secret: "XXXXsecret")
        let client = Client()
        #expect(try client.attempt(.slack, ["webhook_url": .string(slack.channelURL)], longCause) == .sent)
        #expect(client.attempt(raw: #"{"attachments":[]}"#, to: slack.channelURL, service: "slack")
            == .permanent(error: "HTTP 400: invalid_payload"))
        #expect(try client.attempt(.slack, ["webhook_url": .string(slack.goneChannelURL)])
            == .permanent(error: "HTTP 404: channel_not_found"))
        slack.rateLimitNext(1)
        #expect(try client.attempt(.slack, ["webhook_url": .string(slack.channelURL)]) == .temporary(error: "HTTP 429: rate_limited",
                                                                                                      retryAfter: 2))
    }

    @Test func discordTakesContentWithoutMentionsAndItsRateLimit() throws {
        let discord = try FakeChatService(.discord, secret: "tokenD")
        let client = Client()
        let config: JSON = ["webhook_url": .string(discord.channelURL)]
        #expect(try client.attempt(.discord, config, longCause) == .sent, "content cut to 2,000")
        #expect(discord.accepted.first?.json?["allowed_mentions"] == ["parse": []])
        discord.rateLimitNext(1)
        #expect(try client.attempt(.discord, config) == .temporary(error: "HTTP 429: You are being rate limited.", retryAfter: 2))
        let wrong = discord.channelURL.replacingSuffix("tokenD", with: "other")
        #expect(try client.attempt(.discord, ["webhook_url": .string(wrong)])
            == .permanent(error: "HTTP 401: Invalid Webhook Token (code 50027)"))
    }

    @Test func telegramChecksTheTokenAndRateLimits() throws {
        let telegram = try FakeChatService(.telegram(chatID: "-10042"), secret: "123:ABC")
        let client = Client()
        let config: JSON = ["bot_token": "123:ABC", "chat_id": -10042, "api_url": .string(telegram.channelURL)]
        telegram.rateLimitNext(1)
        #expect(try client.attempt(.telegram, config)
            == .temporary(error: "HTTP 429: Too Many Requests: retry after 2", retryAfter: 2))
        #expect(try client.attempt(.telegram, config, longCause) == .sent)
        let text = try #require(telegram.accepted.last?.json?["text"]?.stringValue)
        #expect(text.utf16.count <= 4_096 && text.utf16.count > 4_080 && text.hasSuffix("…"))
        #expect(telegram.accepted.last?.json?["link_preview_options"] == ["is_disabled": true])
        #expect(telegram.accepted.last?.path == "/bot123:ABC/sendMessage")
        #expect(try client.attempt(.telegram, ["bot_token": "123:XYZ", "chat_id": -10042, "api_url": .string(telegram.channelURL)])
            == .permanent(error: "HTTP 401: Unauthorized"))
        #expect(try client.attempt(.telegram, ["bot_token": "123:ABC", "chat_id": 7, "api_url": .string(telegram.channelURL)])
            == .permanent(error: "HTTP 400: Bad Request: chat not found"))
    }

    @Test func ntfyTakesTheJSONFormWithTheToken() throws {
        let ntfy = try FakeChatService(.ntfy, secret: "tk_secret")
        let client = Client()
        var n = down
        n.publicURL = "http://127.0.0.1:8080"
        #expect(try client.attempt(.ntfy, ["url": .string(ntfy.channelURL), "topic": "ops", "token": "tk_secret"], n) == .sent)
        let published = try #require(ntfy.accepted.first?.json)
        #expect(published["topic"] == "ops" && published["click"] == "http://127.0.0.1:8080/incidents/7")
        #expect(published["title"]?.stringValue == down.title, "UTF-8 title, no header encoding needed in JSON")
        #expect(try client.attempt(.ntfy, ["url": .string(ntfy.channelURL), "topic": "ops", "token": "tk_other"])
            == .permanent(error: "HTTP 401: unauthorized"))
    }

    @Test func mattermostTakesText() throws {
        let mattermost = try FakeChatService(.mattermost, secret: "hookkey")
        let client = Client()
        #expect(try client.attempt(.mattermost, ["webhook_url": .string(mattermost.channelURL)], longCause) == .sent)
        #expect(try client.attempt(.mattermost, ["webhook_url": .string(mattermost.baseURL + "/hooks/wrong")])
            == .permanent(error: "HTTP 400: Invalid webhook."))
        #expect(client.attempt(raw: #"{"username":"x"}"#, to: mattermost.channelURL, service: "mattermost")
            == .permanent(error: "HTTP 400: Unable to parse incoming data."))
    }
}

/// The verdict reported from the transport's thread.
final class LockedVerdict: Sendable {
    private let stored = Mutex<AttemptVerdict?>(nil)
    func set(_ v: AttemptVerdict) { stored.withLock { $0 = v } }
    var value: AttemptVerdict? { stored.withLock { $0 } }
}

extension String {
    func replacingSuffix(_ suffix: String, with other: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + other : self
    }
}
