import Testing
import Core
@testable import Notify

/// How each issue-13 service's answer is read: its own success form, its
/// reason for a refusal, and its rate-limit form (SPEC §6).
@Suite struct NewChannelVerdictTests {
    static func answer(_ status: Int, _ body: String = "", headers: [(name: String, value: String)] = []) -> ServiceAnswer {
        ServiceAnswer(status: status, headers: headers, body: Array(body.utf8))
    }

    /// (type, answer, verdict)
    static let cases: [(ChannelType, ServiceAnswer, AttemptVerdict)] = [
        // PagerDuty: 202 sent, 400 permanent with message + errors, 429 at least 30 s.
        (.pagerduty, answer(202, #"{"status":"success","message":"Event processed","dedup_key":"k"}"#), .sent),
        (.pagerduty, answer(400, #"{"status":"invalid event","message":"Event object is invalid","errors":["Length of 'routing_key' is incorrect (should be 32 characters)"]}"#),
         .permanent(error: "HTTP 400: Event object is invalid: Length of 'routing_key' is incorrect (should be 32 characters)")),
        (.pagerduty, answer(429, "", headers: []), .temporary(error: "HTTP 429: Request Limit Exceeded", retryAfter: 30)),
        (.pagerduty, answer(429, "", headers: [("Retry-After", "120")]), .temporary(error: "HTTP 429: Request Limit Exceeded", retryAfter: 120)),
        (.pagerduty, answer(503), .temporary(error: "HTTP 503", retryAfter: nil)),
        // Opsgenie: 202 sent; 401/422 permanent with message and the errors map; 429 retried.
        (.opsgenie, answer(202, #"{"result":"Request will be processed","took":0.1,"requestId":"r1"}"#), .sent),
        (.opsgenie, answer(422, #"{"message":"Request body is not processable. Please check the errors.","errors":{"message":"Message can not be empty."},"took":0.0,"requestId":"r2"}"#),
         .permanent(error: "HTTP 422: Request body is not processable. Please check the errors.: message: Message can not be empty.")),
        (.opsgenie, answer(401, #"{"message":"Could not authenticate","took":0.0,"requestId":"r3"}"#),
         .permanent(error: "HTTP 401: Could not authenticate")),
        (.opsgenie, answer(429, #"{"message":"You are making too many requests!"}"#, headers: [("Retry-After", "5")]),
         .temporary(error: "HTTP 429: You are making too many requests!", retryAfter: 5)),
        // Pushover: status 1 sent; 4xx (and a 2xx with status 0) permanent with errors; 429 the quota, retried.
        (.pushover, answer(200, #"{"status":1,"request":"647d2300-702c-4b38-8b2f-d56326ae460b"}"#), .sent),
        (.pushover, answer(400, #"{"user":"invalid","errors":["user identifier is invalid"],"status":0,"request":"5042853c"}"#),
         .permanent(error: "HTTP 400: user identifier is invalid")),
        (.pushover, answer(200, #"{"status":0,"errors":["application token is invalid"]}"#),
         .permanent(error: "HTTP 200: application token is invalid")),
        (.pushover, answer(429, #"{"status":0,"errors":["message limit reached"]}"#),
         .temporary(error: "HTTP 429: message limit reached", retryAfter: nil)),
        (.pushover, answer(500), .temporary(error: "HTTP 500", retryAfter: nil)),
        // Gotify: the message object sent; error/errorDescription kept.
        (.gotify, answer(200, #"{"id":25,"appid":5,"message":"m","title":"t","priority":8,"date":"2026-01-01T00:00:00Z"}"#), .sent),
        (.gotify, answer(401, #"{"error":"Unauthorized","errorCode":401,"errorDescription":"you need to provide a valid access token or user credentials to access this api"}"#),
         .permanent(error: "HTTP 401: Unauthorized: you need to provide a valid access token or user credentials to access this api")),
        // Matrix: M_LIMIT_EXCEEDED by Retry-After, else retry_after_ms (rounded up); errcode/error kept.
        (.matrix, answer(200, #"{"event_id":"$YUwRidLecu:example.com"}"#), .sent),
        (.matrix, answer(429, #"{"errcode":"M_LIMIT_EXCEEDED","error":"Too many requests","retry_after_ms":2001}"#),
         .temporary(error: "HTTP 429: M_LIMIT_EXCEEDED: Too many requests", retryAfter: 3)),
        (.matrix, answer(429, #"{"errcode":"M_LIMIT_EXCEEDED","error":"Too many requests","retry_after_ms":2000}"#,
                         headers: [("Retry-After", "9")]),
         .temporary(error: "HTTP 429: M_LIMIT_EXCEEDED: Too many requests", retryAfter: 9)),
        (.matrix, answer(403, #"{"errcode":"M_FORBIDDEN","error":"User @bot:example.org not in room"}"#),
         .permanent(error: "HTTP 403: M_FORBIDDEN: User @bot:example.org not in room")),
        (.matrix, answer(401, #"{"errcode":"M_UNKNOWN_TOKEN","error":"Invalid access token passed."}"#),
         .permanent(error: "HTTP 401: M_UNKNOWN_TOKEN: Invalid access token passed.")),
        (.matrix, answer(502, "<html>bad gateway</html>"), .temporary(error: "HTTP 502", retryAfter: nil)),
        // Google Chat: the message sent; Google's error object kept; 429 retried.
        (.googlechat, answer(200, #"{"name":"spaces/AAAA/messages/x.y","thread":{"name":"spaces/AAAA/threads/x"}}"#), .sent),
        (.googlechat, answer(400, #"{"error":{"code":400,"message":"Invalid JSON payload received.","status":"INVALID_ARGUMENT"}}"#),
         .permanent(error: "HTTP 400: INVALID_ARGUMENT: Invalid JSON payload received.")),
        (.googlechat, answer(429, #"{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}"#),
         .temporary(error: "HTTP 429: RESOURCE_EXHAUSTED: Resource has been exhausted", retryAfter: nil)),
    ]

    @Test(arguments: cases)
    func verdict(type: ChannelType, answer: ServiceAnswer, expected: AttemptVerdict) {
        #expect(type.sender.verdict(for: answer) == expected)
    }
}

/// Config validation and write-only secrets of the issue-13 types.
@Suite struct NewChannelConfigTests {
    /// (type, config, the field the error names)
    static let invalid: [(ChannelType, JSON, String)] = [
        (.pagerduty, JSON.object(JSONObject()), "config.routing_key"),
        (.pagerduty, ["routing_key": "short"], "config.routing_key"),
        (.pagerduty, ["routing_key": .string(Paging.routingKey), "api_url": "http://events.example.com"], "config.api_url"),
        (.pagerduty, ["routing_key": .string(Paging.routingKey), "api_url": "https://x.example.com/?a=1"], "config.api_url"),
        (.pagerduty, ["routing_key": .string(Paging.routingKey), "api_url": "ftp://x.example.com"], "config.api_url"),
        (.opsgenie, ["region": "us"], "config.api_key"),
        (.opsgenie, ["api_key": "a b"], "config.api_key"),
        (.opsgenie, ["api_key": "k\r\nX: 1"], "config.api_key"),
        (.opsgenie, ["api_key": "k", "region": "de"], "config.region"),
        (.pushover, ["user_key": .string(Paging.userKey)], "config.app_token"),
        (.pushover, ["app_token": .string(Paging.appToken), "user_key": "nope"], "config.user_key"),
        (.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey + ",")], "config.user_key"),
        (.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey), "api_url": "http://10.0.0.1"],
         "config.api_url"),
        (.gotify, ["token": "t"], "config.url"),
        (.gotify, ["url": "https://push.example.com"], "config.token"),
        (.gotify, ["url": "https://push.example.com/?x=1", "token": "t"], "config.url"),
        (.matrix, ["homeserver": "https://m.example.org", "access_token": "t", "room_id": "#ops:example.org"], "config.room_id"),
        (.matrix, ["homeserver": "https://m.example.org", "room_id": "!r:example.org"], "config.access_token"),
        (.matrix, ["access_token": "t", "room_id": "!r:example.org"], "config.homeserver"),
        (.googlechat, ["webhook_url": "https://chat.example.com/v1/spaces/A/messages"], "config.webhook_url"),
        (.googlechat, ["webhook_url": "http://chat.googleapis.com/v1/spaces/A/messages"], "config.webhook_url"),
        (.googlechat, ["webhook_url": "https://chat.googleapis.com/v2/other"], "config.webhook_url"),
        (.googlechat, ["webhook_url": "https://chat.googleapis.com.evil.example/v1/spaces/A/messages"], "config.webhook_url"),
    ]

    @Test(arguments: invalid)
    func refused(type: ChannelType, config: JSON, field: String) {
        do {
            _ = try Paging.sender(type, config)
            Issue.record("accepted \(config.text)")
        } catch let e as JSONFieldError {
            #expect(e.field == field)
        } catch {
            Issue.record("\(error)")
        }
    }

    static let valid: [(ChannelType, JSON)] = [
        (.pagerduty, ["routing_key": .string(Paging.routingKey), "api_url": "https://events.eu.pagerduty.com"]),
        (.pagerduty, ["routing_key": .string(Paging.routingKey), "api_url": "http://[::1]:8080"]),
        (.pagerduty, ["routing_key": .string(Paging.routingKey), "api_url": ""]),
        (.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey + "," + Paging.userKey),
                     "api_url": "http://localhost:9"]),
        (.gotify, ["url": "http://192.168.1.5:8080", "token": "AbC"]),
        (.googlechat, ["webhook_url": "https://chat.googleapis.com/v1/spaces/AAAA/messages?key=k&token=t"]),
        (.googlechat, ["webhook_url": "http://127.0.0.1:8080/v1/spaces/AAAA/messages?key=k&token=t"]),
    ]

    @Test(arguments: valid)
    func accepted(type: ChannelType, config: JSON) throws {
        _ = try Paging.sender(type, config)
    }

    /// (type, config, masked config as reads show it)
    static let masking: [(ChannelType, JSON, JSON)] = [
        (.pagerduty, ["routing_key": .string(Paging.routingKey)], ["routing_key": "********"]),
        (.opsgenie, ["api_key": "k", "region": "eu"], ["api_key": "********", "region": "eu"]),
        (.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey)],
         ["app_token": "********", "user_key": "********"]),
        (.gotify, ["url": "https://push.example.com", "token": "t"], ["url": "https://push.example.com", "token": "********"]),
        (.matrix, ["homeserver": "https://m.example.org", "access_token": "t", "room_id": "!r:m.example.org"],
         ["homeserver": "https://m.example.org", "access_token": "********", "room_id": "!r:m.example.org"]),
        (.googlechat, ["webhook_url": "https://chat.googleapis.com/v1/spaces/A/messages?key=k&token=t"],
         ["webhook_url": "https://chat.googleapis.com/********"]),
    ]

    @Test(arguments: masking)
    func secretsMaskedAndKept(type: ChannelType, config: JSON, masked: JSON) throws {
        let stored = try #require(config.objectValue)
        let shown = Channel.masked(stored, type: type)
        #expect(JSON.object(shown) == masked)
        #expect(Channel.restoringSecrets(shown, stored: stored, type: type) == stored, "the mask sent back keeps the stored values")
    }

    @Test func textHelpers() {
        #expect(ServiceText.pathSegment("!ops:example.org") == "%21ops%3Aexample.org")
        #expect(ServiceText.pathSegment("a b/é") == "a%20b%2F%C3%A9")
        #expect(ServiceText.html("<a href='x'>&\"") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;")
        #expect(TextLimit.cut("abc", to: 3, in: .unicodeScalars) == "abc")
        #expect(TextLimit.cut("abcd", to: 3, in: .unicodeScalars) == "ab…")
        // A flag is two scalars: never split.
        #expect(TextLimit.cut("a🇩🇪b", to: 3, in: .unicodeScalars) == "a…")
        #expect(TextLimit.cut("ééé", to: 5, in: .utf8Bytes) == "é…")
    }
}
