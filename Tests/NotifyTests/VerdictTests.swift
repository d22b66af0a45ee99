import Testing
import Core
import Notify

/// How each channel type reads its service's answer (pure tables): status,
/// headers and body → sent, temporary (with the service's wait) or
/// permanent, the service's own reason kept in the error.
@Suite struct VerdictTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var type: ChannelType
        var status: Int
        var headers: [String: String] = [:]
        var body: String = ""
        var verdict: AttemptVerdict
        var testDescription: String { "\(type.rawValue) \(status) \(body.prefix(40))" }
    }

    static func temp(_ error: String, _ wait: Int64? = nil) -> AttemptVerdict { .temporary(error: error, retryAfter: wait) }
    static func perm(_ error: String) -> AttemptVerdict { .permanent(error: error) }

    static let cases: [Case] = [
        // Slack: plain-text reasons, Retry-After on 429.
        Case(type: .slack, status: 200, body: "ok", verdict: .sent),
        Case(type: .slack, status: 400, body: "invalid_payload", verdict: perm("HTTP 400: invalid_payload")),
        Case(type: .slack, status: 404, body: "channel_not_found\n", verdict: perm("HTTP 404: channel_not_found")),
        Case(type: .slack, status: 400, body: "no_text", verdict: perm("HTTP 400: no_text")),
        Case(type: .slack, status: 403, body: "action_prohibited", verdict: perm("HTTP 403: action_prohibited")),
        Case(type: .slack, status: 410, body: "channel_is_archived", verdict: perm("HTTP 410: channel_is_archived")),
        Case(type: .slack, status: 429, headers: ["Retry-After": "30"], body: "rate_limited", verdict: temp("HTTP 429: rate_limited", 30)),
        Case(type: .slack, status: 500, body: "rollup_error", verdict: temp("HTTP 500: rollup_error")),
        Case(type: .slack, status: 502, body: "<html><body>Bad gateway</body></html>", verdict: temp("HTTP 502")),
        // Discord: {"message","code"}; retry_after (float) and Retry-After, the longer wins.
        Case(type: .discord, status: 204, verdict: .sent),
        Case(type: .discord, status: 404, body: #"{"message": "Unknown Webhook", "code": 10015}"#,
             verdict: perm("HTTP 404: Unknown Webhook (code 10015)")),
        Case(type: .discord, status: 400, body: #"{"message": "Invalid Form Body", "code": 50035, "errors": {}}"#,
             verdict: perm("HTTP 400: Invalid Form Body (code 50035)")),
        Case(type: .discord, status: 429, headers: ["Retry-After": "2"],
             body: #"{"message": "You are being rate limited.", "retry_after": 6.457, "global": false}"#,
             verdict: temp("HTTP 429: You are being rate limited.", 7)),
        Case(type: .discord, status: 429, headers: ["Retry-After": "3"],
             body: #"{"message": "You are being rate limited.", "retry_after": 0.25, "global": true}"#,
             verdict: temp("HTTP 429: You are being rate limited.", 3)),
        Case(type: .discord, status: 429, body: #"{"message": "You are being rate limited.", "retry_after": 1}"#,
             verdict: temp("HTTP 429: You are being rate limited.", 1)),
        Case(type: .discord, status: 503, body: "upstream connect error", verdict: temp("HTTP 503: upstream connect error")),
        // Telegram: description is the reason; parameters.retry_after the wait.
        Case(type: .telegram, status: 200, body: #"{"ok":true,"result":{"message_id":1}}"#, verdict: .sent),
        Case(type: .telegram, status: 429,
             body: #"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 2","parameters":{"retry_after":2}}"#,
             verdict: temp("HTTP 429: Too Many Requests: retry after 2", 2)),
        Case(type: .telegram, status: 429, headers: ["Retry-After": "9"],
             body: #"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 35","parameters":{"retry_after":35}}"#,
             verdict: temp("HTTP 429: Too Many Requests: retry after 35", 35)),
        Case(type: .telegram, status: 400, body: #"{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}"#,
             verdict: perm("HTTP 400: Bad Request: chat not found")),
        Case(type: .telegram, status: 401, body: #"{"ok":false,"error_code":401,"description":"Unauthorized"}"#,
             verdict: perm("HTTP 401: Unauthorized")),
        Case(type: .telegram, status: 403,
             body: #"{"ok":false,"error_code":403,"description":"Forbidden: bot was kicked from the group chat"}"#,
             verdict: perm("HTTP 403: Forbidden: bot was kicked from the group chat")),
        Case(type: .telegram, status: 400,
             body: #"{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat","#
                + #""parameters":{"migrate_to_chat_id":-1001234567890}}"#,
             verdict: perm("HTTP 400: Bad Request: group chat was upgraded to a supergroup chat "
                           + "(the group is now chat -1001234567890: set chat_id to it)")),
        Case(type: .telegram, status: 200, body: #"{"ok":false,"error_code":400,"description":"Bad Request: odd"}"#,
             verdict: perm("HTTP 400: Bad Request: odd")),
        Case(type: .telegram, status: 502, body: "<html>Bad Gateway</html>", verdict: temp("HTTP 502")),
        // Teams Workflows: 202; the retired connectors' throttling in a 2xx body.
        Case(type: .teams, status: 202, verdict: .sent),
        Case(type: .teams, status: 200, body: "1", verdict: .sent),
        Case(type: .teams, status: 200, body: "Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=0",
             verdict: temp("HTTP 200: Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=0")),
        Case(type: .teams, status: 400,
             body: #"{"error":{"code":"InvalidRequestContent","message":"The request content is not valid."}}"#,
             verdict: perm("HTTP 400: The request content is not valid.")),
        Case(type: .teams, status: 413, body: "Request Entity too large", verdict: perm("HTTP 413: Request Entity too large")),
        Case(type: .teams, status: 429, headers: ["Retry-After": "12"], verdict: temp("HTTP 429", 12)),
        // Mattermost, ntfy and webhooks: the body's reason, generic statuses.
        Case(type: .mattermost, status: 200, body: "ok", verdict: .sent),
        Case(type: .mattermost, status: 400,
             body: #"{"id":"web.incoming_webhook.invalid.app_error","message":"Invalid webhook.","status_code":400}"#,
             verdict: perm("HTTP 400: Invalid webhook.")),
        Case(type: .mattermost, status: 500, body: "Couldn't find the channel", verdict: temp("HTTP 500: Couldn't find the channel")),
        Case(type: .ntfy, status: 200, body: #"{"id":"x","event":"message"}"#, verdict: .sent),
        Case(type: .ntfy, status: 401, body: #"{"code":40101,"http":401,"error":"unauthorized"}"#, verdict: perm("HTTP 401: unauthorized")),
        Case(type: .ntfy, status: 429, headers: ["Retry-After": "5"], body: #"{"code":42901,"http":429,"error":"limit reached"}"#,
             verdict: temp("HTTP 429: limit reached", 5)),
        Case(type: .webhook, status: 204, verdict: .sent),
        Case(type: .webhook, status: 422, body: "missing field\r\n\tevent", verdict: perm("HTTP 422: missing field event")),
        Case(type: .webhook, status: 503, verdict: temp("HTTP 503")),
    ]

    @Test(arguments: cases)
    func verdict(_ c: Case) {
        let answer = ServiceAnswer(status: c.status, headers: c.headers.map { ($0.key, $0.value) }, body: Array(c.body.utf8))
        #expect(c.type.sender.verdict(for: answer) == c.verdict)
    }

    @Test func longReasonsAreCutAndMadeOneLine() {
        let answer = ServiceAnswer(status: 400, body: Array(("bad\n" + String(repeating: "x", count: 500)).utf8))
        guard case .permanent(let e) = SlackChannel.verdict(for: answer) else { Issue.record("not permanent"); return }
        #expect(e.hasPrefix("HTTP 400: bad xxx") && e.hasSuffix("…") && e.count == "HTTP 400: ".count + 201)
    }
}

/// A service that echoes the request's credential in its refusal does not
/// get it stored or logged.
@Suite struct RedactionTests {
    @Test(arguments: [
        ("https://hooks.slack.com/services/T1/B1/sekrit123", [(String, String)](),
         "no_service for https://hooks.slack.com/services/T1/B1/sekrit123", "no_service for ********"),
        ("https://hooks.slack.com/services/T1/B1/sekrit123", [], "bad path /services/T1/B1/sekrit123.", "bad path ********."),
        ("https://prod.logic.azure.com/workflows/1/invoke?api-version=1&sig=abcdef", [], "sig api-version=1&sig=abcdef invalid",
         "sig ******** invalid"),
        ("http://127.0.0.1:9/bot123:ABC/sendMessage", [], "Not Found: /bot123:ABC/sendMessage", "Not Found: ********"),
        ("https://ntfy.sh/", [("Authorization", "Bearer tk_secret")], "token tk_secret is not valid", "token ******** is not valid"),
        ("https://ntfy.sh/", [("Authorization", "Bearer tk_secret")], "channel_not_found", "channel_not_found"),
    ])
    func credentialsAreMasked(url: String, headers: [(String, String)], reason: String, stored: String) {
        let r = OutboundRequest(url: url, headers: headers.map { (name: $0.0, value: $0.1) }, body: [])
        #expect(r.redactingCredentials(in: reason) == stored)
    }
}
