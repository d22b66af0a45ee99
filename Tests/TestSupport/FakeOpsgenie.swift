import Core
import HTTP

/// A stand-in for Opsgenie's Alert API on loopback: `POST /v2/alerts`
/// (create) and `POST /v2/alerts/{identifier}/close|acknowledge`. It checks
/// `Authorization: GenieKey <the key it was given>` (else `401`), the
/// create fields' documented limits (`message` 1–130, `alias` ≤ 512,
/// `description` ≤ 15000, `priority` P1–P5, `details` a map of strings) and
/// `identifierType=alias` on actions, and answers `202` with a `requestId`
/// like Opsgenie (which processes alerts asynchronously), or `422` with
/// `message` and an `errors` map.
public final class FakeOpsgenie: Sendable {
    public struct Action: Sendable {
        /// `create`, `close` or `acknowledge`.
        public var verb: String
        public var alias: String
        public var json: JSON
    }

    public let server: StandInServer
    private let accepted = StandInBox<[Action]>([])
    public var baseURL: String { server.baseURL }
    /// Every request answered 202, in arrival order.
    public var actions: [Action] { accepted.current }

    public init(apiKey: String) throws {
        let accepted = self.accepted
        func handle(_ verb: String) -> @Sendable (HTTPRequest) -> HTTPResponse {
            { req in
                guard req.headers["Authorization"] == "GenieKey \(apiKey)" else {
                    return Self.answer(401, [("message", "Could not authenticate")])
                }
                guard let o = StandInCheck.jsonObject(req) else { return Self.answer(400, [("message", "Invalid JSON body")]) }
                var alias = o["alias"]?.stringValue ?? ""
                if verb == "create" {
                    if let p = Self.createProblem(o) { return Self.unprocessable(p) }
                } else {
                    guard req.query("identifierType") == "alias", let id = req.parameters["identifier"] else {
                        return Self.unprocessable(("identifierType", "must be alias for this stand-in"))
                    }
                    alias = id
                    for k in ["user", "source"] { if let p = StandInCheck.text(o, k, max: 100, required: false) { return Self.unprocessable((k, p)) } }
                    if let p = StandInCheck.text(o, "note", max: 25_000, required: false) { return Self.unprocessable(("note", p)) }
                }
                accepted.withLock { $0.append(Action(verb: verb, alias: alias, json: .object(o))) }
                return Self.answer(202, [("result", "Request will be processed")])
            }
        }
        server = try StandInServer([
            .init("POST", "/v2/alerts", handle("create")),
            .init("POST", "/v2/alerts/{identifier}/close", handle("close")),
            .init("POST", "/v2/alerts/{identifier}/acknowledge", handle("acknowledge")),
        ])
    }

    static func answer(_ status: Int, _ fields: [(String, JSON)]) -> HTTPResponse {
        .json(status, JSON.object(JSONObject(fields + [("took", .double(0.002)), ("requestId", .string(StandInCheck.newID()))])).text)
    }

    static func unprocessable(_ problem: (field: String, text: String)) -> HTTPResponse {
        answer(422, [("message", "Request body is not processable. Please check the errors."),
                     ("errors", .object(JSONObject([(problem.field, .string(problem.text))])))])
    }

    static func createProblem(_ o: JSONObject) -> (String, String)? {
        for (key, max, required) in [("message", 130, true), ("alias", 512, false), ("description", 15_000, false),
                                     ("entity", 512, false), ("source", 100, false)] {
            if let p = StandInCheck.text(o, key, max: max, required: required) { return (key, p) }
        }
        if let p = o["priority"], !["P1", "P2", "P3", "P4", "P5"].contains(p.stringValue ?? "") { return ("priority", "must be P1 to P5") }
        if let tags = o["tags"] {
            guard let items = tags.arrayValue, items.count <= 20,
                  items.allSatisfy({ ($0.stringValue?.count ?? 99) <= 50 }) else { return ("tags", "at most 20 tags of 50 characters") }
        }
        if let details = o["details"] {
            guard let map = details.objectValue, map.entries.allSatisfy({ $0.value.stringValue != nil }) else {
                return ("details", "must be a map of strings")
            }
        }
        return nil
    }
}
