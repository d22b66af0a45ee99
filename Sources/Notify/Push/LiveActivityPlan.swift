import Core
import Store

/// What the outage Live Activity shows (SPEC §6): every monitor with an open
/// `down` incident, longest down first. Quiet monitors (maintenance, muted)
/// and paused ones are left out: nobody should be paged for them.
public struct OutageContent: Sendable, Equatable {
    public struct Down: Sendable, Equatable {
        public var monitorID: Int64
        public var name: String
        public var cause: String
        /// Unix seconds.
        public var since: Int64
        public init(monitorID: Int64, name: String, cause: String, since: Int64) {
            self.monitorID = monitorID
            self.name = name
            self.cause = cause
            self.since = since
        }
    }

    /// All of them, longest down first (ties: lower monitor id first).
    public var down: [Down]

    public init(down: [Down]) {
        self.down = down.sorted { ($0.since, $0.monitorID) < ($1.since, $1.monitorID) }
    }

    public static let none = OutageContent(down: [])

    /// `{"down": [≤ 3 of {"monitor_id","name","cause","since"}], "down_count": N}`.
    public var contentState: JSON {
        let rows: [JSON] = down.prefix(3).map {
            .object(JSONObject([("monitor_id", .int($0.monitorID)), ("name", .string($0.name)), ("cause", .string($0.cause)),
                                ("since", .int($0.since))]))
        }
        return .object(JSONObject([("down", .array(rows)), ("down_count", .int(Int64(down.count)))]))
    }

    /// A compact text for `meta`, to notice changes across restarts.
    public var fingerprint: String {
        down.map { "\($0.monitorID):\($0.since):\($0.name):\($0.cause)" }.joined(separator: "\n")
    }
}

/// The next Live Activity message for one phone (pure).
public enum LiveActivityStep: Sendable, Equatable {
    case start(token: String)
    case update(token: String)
    case end(token: String)
    case nothing

    /// With monitors down: update the running activity if the phone told us
    /// its token; otherwise start one with the push-to-start token, unless a
    /// start is already on its way (the phone will report the new activity's
    /// token, and gets the then-current state). Nothing down: end the running
    /// activity.
    public static func plan(content: OutageContent, device d: MobileDeviceRecord) -> LiveActivityStep {
        if content.down.isEmpty {
            if let t = d.liveActivityToken { return .end(token: t) }
            return .nothing
        }
        if let t = d.liveActivityToken { return .update(token: t) }
        if d.liveActivityStarting { return .nothing }
        if let t = d.liveActivityStartToken { return .start(token: t) }
        return .nothing
    }
}

extension PushMessages {
    /// Live Activity messages expire quickly: a stale lock screen is worse than none.
    static let liveActivityLifetime: Int64 = 3_600
    /// After this the phone greys the activity out if no update came (ActivityKit
    /// ends activities after 8 h anyway).
    static let staleAfter: Int64 = 4 * 3_600
    /// How long the "all clear" stays on the lock screen.
    static let dismissAfter: Int64 = 15 * 60

    /// A Live Activity message; `timestamp` must be above the last one this phone got.
    public static func liveActivity(_ step: LiveActivityStep, content: OutageContent, previous: OutageContent, id: String,
                                    platform: String, hubID: String, hubName: String, timestamp: Int64) -> JSON? {
        var aps = JSONObject()
        let token: String
        var priority: Int64 = 10
        switch step {
        case .nothing:
            return nil
        case .start(let t):
            token = t
            aps["event"] = .string("start")
            aps["timestamp"] = .int(timestamp)
            aps["content-state"] = content.contentState
            aps["attributes-type"] = .string("OutageAttributes")
            aps["attributes"] = .object(JSONObject([("hub_id", .string(hubID)), ("hub_name", .string(hubName))]))
            aps["alert"] = alert(content)
            aps["stale-date"] = .int(timestamp + staleAfter)
        case .update(let t):
            token = t
            aps["event"] = .string("update")
            aps["timestamp"] = .int(timestamp)
            aps["content-state"] = content.contentState
            aps["stale-date"] = .int(timestamp + staleAfter)
            // Light the screen only when something new went down; a recovery
            // is good news that can wait (priority 5 saves the phone's budget).
            let before = Set(previous.down.map(\.monitorID))
            if content.down.contains(where: { !before.contains($0.monitorID) }) {
                aps["alert"] = alert(content)
            } else {
                priority = 5
            }
        case .end(let t):
            token = t
            aps["event"] = .string("end")
            aps["timestamp"] = .int(timestamp)
            aps["content-state"] = OutageContent.none.contentState
            aps["dismissal-date"] = .int(timestamp + dismissAfter)
        }
        var payload = JSONObject()
        payload["aps"] = .object(aps)
        payload["hub_id"] = .string(hubID)
        return message(id: id, device: Device(platform: platform, token: token), kind: "liveactivity", priority: priority,
                       collapseID: nil, expiresAt: timestamp + liveActivityLifetime, payload: payload)
    }

    /// `API is down` / `3 monitors are down`, with the newest cause.
    static func alert(_ content: OutageContent) -> JSON {
        let title = content.down.count == 1 ? "\(content.down[0].name) is down" : "\(content.down.count) monitors are down"
        let newest = content.down.last
        let body = newest.map { $0.cause.isEmpty ? "\($0.name) is down" : "\($0.name): \($0.cause)" } ?? ""
        return .object(JSONObject([("title", .string(title)), ("body", .string(body))]))
    }
}
