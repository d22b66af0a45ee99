import Core
import HTTP

/// A stand-in for a Gotify server's `POST /message` on loopback. It checks
/// the application token it was given (in `X-Gotify-Key`, as the hub sends
/// it; `Authorization: Bearer` and `?token=` are accepted too, as Gotify
/// does), a non-empty `message`, an integer `priority` and an object
/// `extras`, and answers like Gotify: `200` with the created message object,
/// or `{error, errorCode, errorDescription}`.
public final class FakeGotify: Sendable {
    public let server: StandInServer
    private let accepted = StandInBox<[JSON]>([])
    public var baseURL: String { server.baseURL }
    /// Every message created, as Gotify answered it.
    public var messages: [JSON] { accepted.current }

    public init(token: String) throws {
        let accepted = self.accepted
        server = try StandInServer([
            .init("POST", "/message") { req in
                let given = req.headers["X-Gotify-Key"] ?? req.headers["Authorization"].map { String($0.dropFirst("Bearer ".count)) }
                    ?? req.query("token")
                guard given == token else {
                    return Self.error(401, "Unauthorized", "you need to provide a valid access token or user credentials to access this api")
                }
                guard let o = StandInCheck.jsonObject(req) else { return Self.error(400, "Bad Request", "invalid JSON") }
                if let p = StandInCheck.text(o, "message", max: 1 << 20, required: true) { return Self.error(400, "Bad Request", p) }
                if let p = o["priority"], p.intValue == nil { return Self.error(400, "Bad Request", "priority must be an integer") }
                if let e = o["extras"], e.objectValue == nil { return Self.error(400, "Bad Request", "extras must be an object") }
                let created = accepted.withLock { list -> JSON in
                    let m = JSON.object(JSONObject([
                        ("id", .int(Int64(list.count + 1))), ("appid", 1), ("message", o["message"] ?? ""), ("title", o["title"] ?? ""),
                        ("priority", o["priority"] ?? 0), ("extras", o["extras"] ?? .object(JSONObject())),
                        ("date", .string(Time.rfc3339(Time.now()))),
                    ]))
                    list.append(m)
                    return m
                }
                return .json(200, created.text)
            },
        ])
    }

    static func error(_ code: Int, _ error: String, _ description: String) -> HTTPResponse {
        .json(code, JSON.object(JSONObject([("error", .string(error)), ("errorCode", .int(Int64(code))),
                                            ("errorDescription", .string(description))])).text)
    }
}
