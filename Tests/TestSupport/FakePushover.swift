import Core
import HTTP

/// A stand-in for Pushover's Messages API (`POST /1/messages.json`, JSON as
/// documented) on loopback. It checks the application token and user key it
/// was given, `message` (required, ≤ 1024 characters), `title` (≤ 250),
/// `url` (≤ 512) and `priority` (−2…2; 2 needs `retry` ≥ 30 and `expire` ≤
/// 10800), and answers like Pushover: `200 {"status":1,"request":…}`, or a
/// 4xx with `status: 0` and `errors`.
public final class FakePushover: Sendable {
    public let server: StandInServer
    private let accepted = StandInBox<[JSON]>([])
    public var baseURL: String { server.baseURL }
    /// Every message answered `status: 1`.
    public var messages: [JSON] { accepted.current }

    public init(appToken: String, userKey: String) throws {
        let accepted = self.accepted
        server = try StandInServer([
            .init("POST", "/1/messages.json") { req in
                guard let o = StandInCheck.jsonObject(req) else { return Self.refused(400, "", "request body must be JSON") }
                guard o["token"]?.stringValue == appToken else { return Self.refused(400, "token", "application token is invalid") }
                guard o["user"]?.stringValue == userKey else { return Self.refused(400, "user", "user identifier is invalid") }
                for (key, max, required) in [("message", 1024, true), ("title", 250, false), ("url", 512, false)] {
                    if let p = StandInCheck.text(o, key, max: max, required: required) { return Self.refused(400, key, p) }
                }
                if let p = o["priority"] {
                    guard let n = p.intValue, (-2...2).contains(n) else { return Self.refused(400, "priority", "priority is invalid") }
                    if n == 2, (o["retry"]?.intValue ?? 0) < 30 || (o["expire"]?.intValue ?? 99_999) > 10_800 {
                        return Self.refused(400, "retry", "emergency priority needs retry and expire")
                    }
                }
                accepted.withLock { $0.append(.object(o)) }
                return .json(200, JSON.object(JSONObject([("status", 1), ("request", .string(StandInCheck.newID()))])).text)
            },
        ])
    }

    static func refused(_ status: Int, _ field: String, _ error: String) -> HTTPResponse {
        var o = JSONObject()
        if !field.isEmpty { o[field] = "invalid" }
        o["errors"] = [.string(error)]
        o["status"] = 0
        o["request"] = .string(StandInCheck.newID())
        return .json(status, JSON.object(o).text)
    }
}
