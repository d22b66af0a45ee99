import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The issue-13 channel types' configs through the API of the running
/// binary: bad fields answer 400 naming `config.<key>`; secrets read as the
/// mask, and a PATCH that sends a read's config back keeps them — proved by
/// a test notification the stand-in accepts only with the real credential.
@Suite struct NotifyServicesConfigTests {
    static let routingKey = NotifyServicesE2ETests.routingKey
    static let appToken = NotifyServicesE2ETests.appToken
    static let userKey = NotifyServicesE2ETests.userKey

    /// (type, config, the field the 400 names)
    static let refused: [(String, JSON, String)] = [
        ("pagerduty", ["routing_key": "not-a-key"], "config.routing_key"),
        ("pagerduty", ["routing_key": .string(routingKey), "api_url": "http://events.example.com"], "config.api_url"),
        ("opsgenie", ["api_key": "k", "region": "asia"], "config.region"),
        ("opsgenie", ["api_key": "k\nX-Injected: 1"], "config.api_key"),
        ("pushover", ["app_token": .string(appToken)], "config.user_key"),
        ("pushover", ["app_token": "short", "user_key": .string(userKey)], "config.app_token"),
        ("gotify", ["url": "gotify.example.com", "token": "t"], "config.url"),
        ("matrix", ["homeserver": "https://m.example.org", "access_token": "t", "room_id": "#ops:m.example.org"], "config.room_id"),
        ("googlechat", ["webhook_url": "https://hooks.slack.com/services/T/B/x"], "config.webhook_url"),
    ]

    @Test func badFieldsAnswer400WithTheField() throws {
        let hub = try MonitoringHub()
        for (type, config, field) in Self.refused {
            expectError(try hub.call("POST", "/api/channels", json: ["name": "x", "type": .string(type), "config": config]), 400,
                        field: field)
        }
    }

    @Test func secretsMaskedOnReadAndKeptWhenTheMaskIsSentBack() throws {
        let pd = try FakePagerDuty(routingKey: Self.routingKey)
        let og = try FakeOpsgenie(apiKey: "genie-key-1")
        let po = try FakePushover(appToken: Self.appToken, userKey: Self.userKey)
        let gotify = try FakeGotify(token: "gotify-token")
        let matrix = try FakeMatrix(accessToken: "syt_secret", roomID: "!r:m.example.org", encodedRoomID: "%21r%3Am.example.org")
        let chat = try FakeGoogleChat()
        let hub = try MonitoringHub()
        // (type, config, its secret keys, how many messages its stand-in accepted)
        let cases: [(String, JSON, [String], () -> Int)] = [
            ("pagerduty", ["routing_key": .string(Self.routingKey), "api_url": .string(pd.baseURL)], ["routing_key"], { pd.events.count }),
            ("opsgenie", ["api_key": "genie-key-1", "api_url": .string(og.baseURL)], ["api_key"], { og.actions.count }),
            ("pushover", ["app_token": .string(Self.appToken), "user_key": .string(Self.userKey), "api_url": .string(po.baseURL)],
             ["app_token", "user_key"], { po.messages.count }),
            ("gotify", ["url": .string(gotify.baseURL), "token": "gotify-token"], ["token"], { gotify.messages.count }),
            ("matrix", ["homeserver": .string(matrix.baseURL), "access_token": "syt_secret", "room_id": "!r:m.example.org"],
             ["access_token"], { matrix.messages.count }),
            ("googlechat", ["webhook_url": .string(chat.webhookURL)], [], { chat.messages.count }),
        ]
        for (type, config, secrets, accepted) in cases {
            let created = try expectJSON(try hub.call("POST", "/api/channels", json: ["name": .string(type), "type": .string(type),
                                                                                      "config": config]), 201)
            let id = try #require(created["id"]?.intValue)
            let shown = try expectJSON(try hub.call("GET", "/api/channels/\(id)"))
            let masked = try #require(shown["config"])
            for k in secrets { #expect(masked[k] == "********", "\(type) \(k) is write-only") }
            #expect(!masked.text.contains("genie-key-1") && !masked.text.contains("syt_secret") && !masked.text.contains("standin-token"))
            // Send back what the read showed (an edit form's round trip), renamed.
            let patched = try expectJSON(try hub.call("PATCH", "/api/channels/\(id)", json: ["name": .string(type + " 2"),
                                                                                             "config": masked]))
            #expect(patched["config"] == masked)
            _ = try expectJSON(try hub.call("POST", "/api/channels/\(id)/test"))
            let deadline = Time.monotonicNanos() + 15_000_000_000
            while accepted() < 1 && Time.monotonicNanos() < deadline { usleep(50_000) }
            #expect(accepted() == 1, "\(type): the stand-in accepted the test with the stored credential")
        }
    }
}
