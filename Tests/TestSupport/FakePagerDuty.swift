import Core
import HTTP

/// A stand-in for PagerDuty's Events API v2 (`POST /v2/enqueue`) on
/// loopback. It checks what PagerDuty documents — the routing key it was
/// given, `event_action`, a `dedup_key` of at most 255 characters, and for
/// a trigger `payload.summary` (≤ 1024), `source`, `severity` and an RFC 3339
/// `timestamp` — and answers as PagerDuty does: `202 {"status":"success",
/// "message":"Event processed","dedup_key":…}`, or `400` with `errors`.
public final class FakePagerDuty: Sendable {
    public struct Event: Sendable {
        public var action: String
        public var dedupKey: String
        public var json: JSON
    }

    public let server: StandInServer
    private let accepted = StandInBox<[Event]>([])
    public var baseURL: String { server.baseURL }
    /// Every event answered 202, in arrival order.
    public var events: [Event] { accepted.current }

    public init(routingKey: String) throws {
        let accepted = self.accepted
        server = try StandInServer([
            .init("POST", "/v2/enqueue") { req in
                guard let o = StandInCheck.jsonObject(req) else { return Self.invalid("Event object is invalid: not JSON") }
                if let problem = Self.problem(o, routingKey: routingKey) { return Self.invalid(problem) }
                let action = o["event_action"]?.stringValue ?? ""
                let key = o["dedup_key"]?.stringValue ?? StandInCheck.newID()
                accepted.withLock { $0.append(Event(action: action, dedupKey: key, json: .object(o))) }
                return .json(202, JSON.object(JSONObject([("status", "success"), ("message", "Event processed"),
                                                          ("dedup_key", .string(key))])).text)
            },
        ])
    }

    static func invalid(_ error: String) -> HTTPResponse {
        .json(400, JSON.object(JSONObject([("status", "invalid event"), ("message", "Event object is invalid"),
                                           ("errors", [.string(error)])])).text)
    }

    static func problem(_ o: JSONObject, routingKey: String) -> String? {
        guard o["routing_key"]?.stringValue == routingKey else { return "Invalid routing key" }
        let action = o["event_action"]?.stringValue ?? ""
        guard ["trigger", "acknowledge", "resolve"].contains(action) else { return "'event_action' is invalid" }
        if let p = StandInCheck.text(o, "dedup_key", max: 255, required: action != "trigger") { return p }
        guard action == "trigger" else { return nil }
        guard let payload = o["payload"]?.objectValue else { return "'payload' is missing" }
        if let p = StandInCheck.text(payload, "summary", max: 1024, required: true) ?? StandInCheck.text(payload, "source", max: 255, required: true) {
            return "payload." + p
        }
        guard let severity = payload["severity"]?.stringValue, ["critical", "error", "warning", "info"].contains(severity) else {
            return "'payload.severity' is invalid"
        }
        if let t = payload["timestamp"], t.stringValue.flatMap(Time.parseRFC3339) == nil { return "'payload.timestamp' is invalid" }
        if let d = payload["custom_details"], d.objectValue == nil { return "'payload.custom_details' must be an object" }
        return nil
    }
}
