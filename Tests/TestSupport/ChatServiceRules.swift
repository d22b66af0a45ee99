import Core
import HTTP

/// What each chat service's real endpoint accepts and answers, as its
/// documentation has it (docs/channel-facts.md): the request shape, where
/// the credential goes, the success answer, and the refusal answers. Used
/// by `FakeChatService`; where the docs name no refusal body the answers
/// are the services' usual ones, so the hub's verdicts get real shapes.
enum ChatServiceRules {
    typealias Answer = HTTPResponse

    static func answer(_ service: FakeChatService.Service, secret: String, request req: HTTPRequest, rateLimited: Bool) -> Answer {
        switch service {
        case .teams: teams(req, secret: secret)
        case .slack: slack(req, secret: secret, rateLimited: rateLimited)
        case .discord: discord(req, secret: secret, rateLimited: rateLimited)
        case .telegram(let chatID): telegram(req, secret: secret, chatID: chatID, rateLimited: rateLimited)
        case .ntfy: ntfy(req, secret: secret)
        case .mattermost: mattermost(req, secret: secret)
        }
    }

    static func body(_ req: HTTPRequest) -> JSON? {
        guard req.method == "POST", req.headers["Content-Type"]?.lowercased().hasPrefix("application/json") == true else { return nil }
        return try? JSON.parse(req.body)
    }

    static func string(_ j: JSON?, _ key: String) -> String? { j?[key]?.stringValue }

    /// Workflows ("When a Teams webhook request is received"): the URL's
    /// `sig` is the credential; the body must be `{"type": "message",
    /// "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive",
    /// "content": <an AdaptiveCard>}]}` within 28 KB. Accepted: 202.
    static func teams(_ req: HTTPRequest, secret: String) -> Answer {
        guard req.path.hasPrefix("/workflows/"), req.path.hasSuffix("/triggers/manual/paths/invoke"), req.query("sig") == secret else {
            return .json(401, #"{"error":{"code":"DirectApiAuthorizationRequired","message":"The request must be authenticated."}}"#)
        }
        if req.body.count > 28_000 { return .text(413, "Request Entity too large") }
        guard let j = body(req), string(j, "type") == "message", let first = j["attachments"]?.arrayValue?.first,
              string(first, "contentType") == "application/vnd.microsoft.card.adaptive",
              let card = first["content"], string(card, "type") == "AdaptiveCard", string(card, "version") != nil,
              let blocks = card["body"]?.arrayValue, !blocks.isEmpty,
              blocks.allSatisfy({ string($0, "type") != "TextBlock" || string($0, "text") != nil }) else {
            return .json(400, #"{"error":{"code":"InvalidRequestContent","message":"The request content is not an Adaptive Card message."}}"#)
        }
        return HTTPResponse(status: 202)
    }

    /// Incoming webhook `/services/T…/B…/<secret>`: `text` or `blocks`
    /// required; refusals are plain text. `…/gone` is a webhook whose
    /// channel was deleted.
    static func slack(_ req: HTTPRequest, secret: String, rateLimited: Bool) -> Answer {
        if rateLimited {
            var r = HTTPResponse.text(429, "rate_limited")
            r.headers.add("Retry-After", "2")
            return r
        }
        if req.path == "/services/T0001/B0001/gone" { return .text(404, "channel_not_found") }
        guard req.path == "/services/T0001/B0001/\(secret)" else { return .text(403, "invalid_token") }
        guard let j = body(req), string(j, "text")?.isEmpty == false || j["blocks"]?.arrayValue != nil else {
            return .text(400, "invalid_payload")
        }
        return .text(200, "ok")
    }

    /// Execute Webhook `/api/webhooks/{id}/{token}`: at least `content` (≤
    /// 2,000 characters) or `embeds`; errors `{"message", "code"}`; 204.
    static func discord(_ req: HTTPRequest, secret: String, rateLimited: Bool) -> Answer {
        let parts = req.path.split(separator: "/")
        guard parts.count == 4, parts[0] == "api", parts[1] == "webhooks", parts[2] == "1001" else {
            return .json(404, #"{"message": "Unknown Webhook", "code": 10015}"#)
        }
        guard parts[3] == secret else { return .json(401, #"{"message": "Invalid Webhook Token", "code": 50027}"#) }
        if rateLimited {
            var r = HTTPResponse.json(429, #"{"message": "You are being rate limited.", "retry_after": 1.5, "global": false}"#)
            r.headers.add("Retry-After", "2")
            return r
        }
        guard let j = body(req) else { return .json(400, #"{"message": "Cannot send an empty message", "code": 50006}"#) }
        let content = string(j, "content") ?? ""
        if content.isEmpty && j["embeds"] == nil { return .json(400, #"{"message": "Cannot send an empty message", "code": 50006}"#) }
        if content.utf16.count > 2000 {
            return .json(400, #"{"message": "Invalid Form Body", "code": 50035, "errors": {"content": {"_errors": []}}}"#)
        }
        return HTTPResponse(status: 204)
    }

    /// Bot API `/bot<token>/sendMessage`: `chat_id` and `text` (1–4,096
    /// characters); every answer `{"ok", …}`. Flood control: 429 with
    /// `parameters.retry_after`.
    static func telegram(_ req: HTTPRequest, secret: String, chatID: String, rateLimited: Bool) -> Answer {
        guard req.path.hasSuffix("/sendMessage") else { return .json(404, #"{"ok":false,"error_code":404,"description":"Not Found"}"#) }
        guard req.path == "/bot\(secret)/sendMessage" else {
            return .json(401, #"{"ok":false,"error_code":401,"description":"Unauthorized"}"#)
        }
        if rateLimited {
            return .json(429, #"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 2","parameters":{"retry_after":2}}"#)
        }
        guard let j = body(req) else {
            return .json(400, #"{"ok":false,"error_code":400,"description":"Bad Request: message text is empty"}"#)
        }
        let chat = j["chat_id"]?.stringValue ?? j["chat_id"]?.intValue.map { String($0) }
        guard chat == chatID else { return .json(400, #"{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}"#) }
        let text = string(j, "text") ?? ""
        if text.isEmpty { return .json(400, #"{"ok":false,"error_code":400,"description":"Bad Request: message text is empty"}"#) }
        if text.utf16.count > 4096 {
            return .json(400, #"{"ok":false,"error_code":400,"description":"Bad Request: message is too long"}"#)
        }
        return .json(200, #"{"ok":true,"result":{"message_id":1,"chat":{"id":\#(chatID)},"text":"…"}}"#)
    }

    /// JSON publishing: the object POSTed to the root with `topic`; the
    /// access token as `Authorization: Bearer`.
    static func ntfy(_ req: HTTPRequest, secret: String) -> Answer {
        guard req.headers["Authorization"] == "Bearer \(secret)" else {
            return .json(401, #"{"code":40101,"http":401,"error":"unauthorized","link":"https://ntfy.sh/docs/publish/#authentication"}"#)
        }
        guard req.path == "/", let j = body(req), let topic = string(j, "topic"), !topic.isEmpty else {
            return .json(400, #"{"code":40001,"http":400,"error":"invalid request: topic missing"}"#)
        }
        return .json(200, #"{"id":"hwQ2YpKdmg","time":1764410520,"event":"message","topic":"\#(topic)"}"#)
    }

    /// Incoming webhook `/hooks/<key>`: `text` (or `attachments`)
    /// required; success `200 ok` in plain text.
    static func mattermost(_ req: HTTPRequest, secret: String) -> Answer {
        guard req.path == "/hooks/\(secret)" else {
            return .json(400, #"{"id":"web.incoming_webhook.invalid.app_error","message":"Invalid webhook.","status_code":400}"#)
        }
        guard let j = body(req), string(j, "text")?.isEmpty == false || j["attachments"] != nil else {
            return .json(400, #"{"id":"web.incoming_webhook.parse.app_error","message":"Unable to parse incoming data.","status_code":400}"#)
        }
        return .text(200, "ok")
    }
}
