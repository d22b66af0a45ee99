import Core
import HTTP

/// A stand-in for a Google Chat incoming webhook,
/// `POST /v1/spaces/{space}/messages?key=…&token=…`, on loopback. It checks
/// the space, key and token it was given (the URL is the credential; a wrong
/// one answers Google's error object), a JSON body whose `text` is a
/// non-empty string, and the documented 32,000-byte message size, and
/// answers like Chat: `200` with the created message (`name`, `text`,
/// `thread.name`, …).
public final class FakeGoogleChat: Sendable {
    public let server: StandInServer
    private let accepted = StandInBox<[JSON]>([])
    /// The webhook URL to configure on a `googlechat` channel.
    public let webhookURL: String
    /// The request bodies of every message created.
    public var messages: [JSON] { accepted.current }

    public init(space: String = "AAAAtest", key: String = "AIzaSyStandInKey", token: String = "standin-token") throws {
        let accepted = self.accepted
        server = try StandInServer([
            .init("POST", "/v1/spaces/{space}/messages") { req in
                guard req.parameters["space"] == space, req.query("key") == key, req.query("token") == token else {
                    return Self.error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
                }
                guard req.body.count <= 32_000, let o = StandInCheck.jsonObject(req),
                      StandInCheck.text(o, "text", max: 32_000, required: true) == nil else {
                    return Self.error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")
                }
                let n = accepted.withLock { list -> Int in
                    list.append(.object(o))
                    return list.count
                }
                let created = JSON.object(JSONObject([
                    ("name", .string("spaces/\(space)/messages/m\(n)")), ("sender", ["name": "users/114022495153014004089", "type": "BOT"]),
                    ("text", o["text"] ?? ""), ("thread", ["name": .string("spaces/\(space)/threads/t\(n)")]),
                    ("space", ["name": .string("spaces/\(space)")]), ("createTime", .string(Time.rfc3339(Time.now()))),
                ]))
                return .json(200, created.text)
            },
        ])
        webhookURL = server.baseURL + "/v1/spaces/\(space)/messages?key=\(key)&token=\(token)"
    }

    static func error(_ code: Int, _ status: String, _ message: String) -> HTTPResponse {
        .json(code, JSON.object(JSONObject([("error", .object(JSONObject([("code", .int(Int64(code))), ("message", .string(message)),
                                                                           ("status", .string(status))])))])).text)
    }
}
