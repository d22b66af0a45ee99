import Store
import Core

/// The relay messages of SPEC §6, built as pure functions (tested against
/// tables): one alert to one phone, a sign-in approval request (§11), and
/// the Live Activity start, update and end. The message id is the outbox
/// row's (`outbox-<id>`), so a retry after a crash carries the same id and
/// the relay can drop the duplicate.
public enum PushMessages {
    /// Where a message goes.
    public struct Device: Sendable, Equatable {
        public var platform: String
        public var token: String
        public init(platform: String, token: String) {
            self.platform = platform
            self.token = token
        }
    }

    /// How long the platform keeps trying a phone that is off: an alert a day
    /// old is still worth seeing; a test is not.
    static let alertLifetime: Int64 = 86_400
    static let testLifetime: Int64 = 3_600

    /// How loud one priority band is on the phone (SPEC §10): the
    /// interruption level, whether it plays the default sound, and the
    /// relay's (APNs) priority, 5 letting the platform save power.
    public struct Band: Sendable, Equatable {
        public var interruptionLevel: String
        public var sound: Bool
        public var relayPriority: Int64
    }

    public static func band(_ priority: Int) -> Band {
        switch priority {
        case ...1: Band(interruptionLevel: "passive", sound: false, relayPriority: 5)
        case 2...3: Band(interruptionLevel: "active", sound: false, relayPriority: 10)
        case 4...7: Band(interruptionLevel: "active", sound: true, relayPriority: 10)
        default: Band(interruptionLevel: "time-sensitive", sound: true, relayPriority: 10)
        }
    }

    /// `time-sensitive` for what needs someone now, `passive` for tests
    /// (with the default priorities; any priority maps through `band`).
    public static func interruptionLevel(_ n: Notification) -> String { band(n.priority).interruptionLevel }

    /// Title and body for a phone: short, with what, where and since when.
    /// `API is down` / `HTTP 503 from hub, eu-west · since 10:02 UTC`.
    public static func texts(_ n: Notification) -> (title: String, body: String) {
        let again = n.kind == .reminder ? "still " : ""
        let from = n.locations.isEmpty ? "" : " from " + n.locations.joined(separator: ", ")
        let cause = n.cause.isEmpty ? "" : n.cause
        let since = " · since \(Texts.clock(n.since))"
        switch n.event {
        case nil:
            return ("Test notification", "Push from \(n.hubName) works (channel \"\(n.monitorName)\").")
        case .monitorDown?:
            return ("\(n.monitorName) is \(again)down", (cause.isEmpty ? "Down" : cause) + from + since)
        case .monitorDegraded?:
            return ("\(n.monitorName) is \(again)degraded", (cause.isEmpty ? "Degraded" : cause) + from + since)
        case .monitorUp?:
            return ("\(n.monitorName) is up", "Back after \(Texts.duration(n.at - n.since)) (down since \(Texts.clock(n.since)))")
        case .expiry?:
            return ("\(n.monitorName): certificate expires soon", cause.isEmpty ? "Renew the certificate." : cause)
        case .agentOffline?:
            return ("Agent \(n.monitorName) is \(again)offline", "Not heard from" + since)
        case .agentOnline?:
            return ("Agent \(n.monitorName) is online", "Back after \(Texts.duration(n.at - n.since))")
        case .message?:
            return (n.message?.title ?? "Message", n.message?.body ?? "")
        }
    }

    /// An alert (or reminder, or test) for one phone. Beside `hub_id`:
    /// `priority` (what quiet hours are measured against when it is sent),
    /// `event_id` (the app asks `GET /api/events?after=` for what it
    /// missed) and `url`, the hub's page to open on a tap (SPEC §10).
    ///
    /// `alarm` (a `mobile` channel with `config.alarm`, SPEC §15): `"alarm":
    /// true` beside `hub_id`, so the app plays its alarm screen while open,
    /// and never quieter than `time-sensitive` (with the sound).
    public static func alert(_ n: Notification, to device: Device, hubID: String, alarm: Bool = false) -> JSON {
        let (title, body) = texts(n)
        // Messages are a thread of their own, each its own notification:
        // sharing a monitor's collapse id would replace that monitor's alert.
        let thread = n.event == .message ? "messages"
            : n.monitorID.map { "monitor-\($0)" } ?? (n.event == nil ? "test" : "hub")
        let collapse = n.event == .message ? "message-\(n.eventID ?? n.outboxID)" : thread
        var band = band(n.priority)
        if alarm, band.interruptionLevel != "time-sensitive" {
            band = Band(interruptionLevel: "time-sensitive", sound: true, relayPriority: 10)
        }
        var aps = JSONObject()
        aps["alert"] = .object(JSONObject([("title", .string(title)), ("body", .string(body))]))
        if band.sound { aps["sound"] = .string("default") }
        if let e = n.event { aps["category"] = .string(e.category) }
        aps["thread-id"] = .string(thread)
        aps["interruption-level"] = .string(band.interruptionLevel)
        var payload = JSONObject()
        payload["aps"] = .object(aps)
        payload["hub_id"] = .string(hubID)
        payload["priority"] = .int(Int64(n.priority))
        payload["event"] = .string(n.event?.rawValue ?? "test")
        payload["event_id"] = JSON.from(n.eventID)
        payload["url"] = JSON.from(n.pageURL)
        if let m = n.monitorID { payload["monitor_id"] = .int(m) }
        if let i = n.incidentID { payload["incident_id"] = .int(i) }
        if alarm { payload["alarm"] = .bool(true) }
        return message(id: n.messageID, device: device, kind: "alert", priority: band.relayPriority, collapseID: collapse,
                       expiresAt: n.at + (n.event == nil ? testLifetime : alertLifetime), payload: payload)
    }

    /// The same message made quiet for a phone whose user is in quiet hours
    /// (SPEC §10): `passive` and no sound, nothing else changed (it is
    /// delivered, never dropped, and keeps its relay priority so it is in
    /// the notification list at once). Applied when the message is sent,
    /// not when it was queued: see `PushTransport`.
    public static func quieted(_ message: JSON) -> JSON {
        guard case .object(var m) = message, case .object(var payload)? = m["payload"],
              case .object(var aps)? = payload["aps"] else { return message }
        aps["interruption-level"] = .string("passive")
        aps["sound"] = Optional<JSON>.none
        payload["aps"] = .object(aps)
        // Quiet means quiet: no alarm screen either (the phone's owner chose
        // the quiet hours; the channel's admin chose the alarm).
        payload["alarm"] = Optional<JSON>.none
        m["payload"] = .object(payload)
        return .object(m)
    }

    /// A request to approve a web sign-in (SPEC §11): `LOGIN_APPROVAL` (the
    /// app's category with the approve / refuse actions), time-sensitive, and
    /// `approval_id` and `client` beside `hub_id`. The number the browser
    /// shows is never in it: the person holding the phone must read it off
    /// the screen of the sign-in they started. It expires with the approval.
    public static func loginApproval(approvalID: String, client: String, to device: Device, id: String, hubID: String,
                                     hubName: String, expiresAt: Int64) -> JSON {
        var aps = JSONObject()
        aps["alert"] = .object(JSONObject([
            ("title", .string("Sign in to \(hubName)?")),
            ("body", .string("\(client) is signing in to your account. Approve only if it is you, "
                + "with the number your browser shows.")),
        ]))
        aps["sound"] = .string("default")
        aps["category"] = .string("LOGIN_APPROVAL")
        aps["thread-id"] = .string("login-approval")
        aps["interruption-level"] = .string("time-sensitive")
        var payload = JSONObject()
        payload["aps"] = .object(aps)
        payload["hub_id"] = .string(hubID)
        payload["approval_id"] = .string(approvalID)
        payload["client"] = .string(client)
        return message(id: id, device: device, kind: "alert", priority: 10, collapseID: "login-approval-\(approvalID)",
                       expiresAt: expiresAt, payload: payload)
    }

    static func message(id: String, device: Device, kind: String, priority: Int64, collapseID: String?, expiresAt: Int64,
                        payload: JSONObject) -> JSON {
        var m = JSONObject()
        m["id"] = .string(id)
        m["platform"] = .string(device.platform)
        m["token"] = .string(device.token)
        m["kind"] = .string(kind)
        m["priority"] = .int(priority)
        if let collapseID { m["collapse_id"] = .string(collapseID) }
        m["expires_at"] = .int(expiresAt)
        m["payload"] = .object(payload)
        return .object(m)
    }
}
