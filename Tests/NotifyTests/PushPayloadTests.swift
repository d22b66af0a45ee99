import Testing
import Core
import Notify
import Store

/// The relay messages of SPEC §6 as tables of expected fields.
@Suite struct PushPayloadTests {
    static let device = PushMessages.Device(platform: "ios", token: "apns-token-1")

    static func note(_ event: EventKind?, monitor: Int64? = 12, incident: Int64? = 7, kind: Notification.Kind = .alert) -> Notification {
        Notification(kind: kind, event: event, monitorID: monitor, monitorName: "API", incidentID: incident, cause: "HTTP 503",
                     locations: ["hub", "eu-west"], at: 1_764_400_000, since: 1_764_399_880, outboxID: 481, hubName: "Ops hub")
    }

    struct Row: Sendable, CustomStringConvertible {
        var event: EventKind?
        var category: String?
        var level: String
        var title: String
        var body: String
        /// The default priority's band (SPEC §10): the relay's APNs priority and the sound.
        var relay: Int64 = 10
        var sound = true
        var description: String { event?.rawValue ?? "test" }
    }

    static let rows: [Row] = [
        Row(event: .monitorDown, category: "MONITOR_DOWN", level: "time-sensitive", title: "API is down",
            body: "HTTP 503 from hub, eu-west · since 07:04 UTC"),
        Row(event: .monitorDegraded, category: "MONITOR_DEGRADED", level: "active", title: "API is degraded",
            body: "HTTP 503 from hub, eu-west · since 07:04 UTC"),
        Row(event: .monitorUp, category: "MONITOR_UP", level: "active", title: "API is up",
            body: "Back after 2 min (down since 07:04 UTC)"),
        Row(event: .expiry, category: "EXPIRY", level: "active", title: "API: certificate expires soon", body: "HTTP 503"),
        Row(event: .agentOffline, category: "AGENT_OFFLINE", level: "time-sensitive", title: "Agent API is offline",
            body: "Not heard from · since 07:04 UTC"),
        Row(event: .agentOnline, category: "AGENT_ONLINE", level: "active", title: "Agent API is online", body: "Back after 2 min"),
        Row(event: nil, category: nil, level: "passive", title: "Test notification", body: "Push from Ops hub works (channel \"API\").",
            relay: 5, sound: false),
    ]

    @Test(arguments: rows) func alertMessage(_ row: Row) throws {
        let m = PushMessages.alert(Self.note(row.event), to: Self.device, hubID: "hub-abc")
        #expect(m["id"]?.stringValue == "outbox-481")
        #expect(m["platform"]?.stringValue == "ios")
        #expect(m["token"]?.stringValue == "apns-token-1")
        #expect(m["kind"]?.stringValue == "alert")
        #expect(m["priority"]?.intValue == row.relay)
        #expect(m["collapse_id"]?.stringValue == "monitor-12")
        #expect(m["expires_at"]?.intValue == Int64(1_764_400_000 + (row.event == nil ? 3_600 : 86_400)))
        let p = try #require(m["payload"])
        let aps = try #require(p["aps"])
        #expect(aps["alert"]?["title"]?.stringValue == row.title)
        #expect(aps["alert"]?["body"]?.stringValue == row.body)
        #expect(aps["sound"]?.stringValue == (row.sound ? "default" : nil))
        #expect(aps["category"]?.stringValue == row.category)
        #expect(aps["thread-id"]?.stringValue == "monitor-12")
        #expect(aps["interruption-level"]?.stringValue == row.level)
        #expect(p["hub_id"]?.stringValue == "hub-abc")
        #expect(p["priority"]?.intValue == Int64(AlertPriority.standard(row.event)))
        #expect(p["event"]?.stringValue == (row.event?.rawValue ?? "test"))
        #expect(p["monitor_id"]?.intValue == 12)
        #expect(p["incident_id"]?.intValue == 7)
    }

    @Test func reminderSaysStillDown() {
        let m = PushMessages.alert(Self.note(.monitorDown, kind: .reminder), to: Self.device, hubID: "h")
        #expect(m["payload"]?["aps"]?["alert"]?["title"]?.stringValue == "API is still down")
        #expect(m["payload"]?["aps"]?["category"]?.stringValue == "MONITOR_DOWN")
    }

    @Test func agentEventsCarryNoMonitorIDs() {
        let m = PushMessages.alert(Self.note(.agentOffline, monitor: nil, incident: nil), to: Self.device, hubID: "h")
        #expect(m["payload"]?["monitor_id"] == nil)
        #expect(m["payload"]?["incident_id"] == nil)
        #expect(m["collapse_id"]?.stringValue == "hub")
    }

    // MARK: Live Activity

    static func content(_ n: Int) -> OutageContent {
        // Monitor 1 has been down longest.
        OutageContent(down: (1...max(n, 1)).prefix(n).reversed().map {
            OutageContent.Down(monitorID: Int64($0), name: "M\($0)", cause: "timeout", since: 1_000 + Int64($0) * 10)
        })
    }

    static func device(start: String? = "st", activity: String? = nil, starting: Bool = false) -> MobileDeviceRecord {
        var d = MobileDeviceRecord(signInID: 1, userID: 1, platform: "ios", token: "t", name: "phone", appVersion: "1.0")
        d.liveActivityStartToken = start
        d.liveActivityToken = activity
        d.liveActivityID = activity == nil ? nil : "act-1"
        d.liveActivityStarting = starting
        return d
    }

    @Test func planUsesTheStartTokenOnlyWhenNoActivityIsKnown() {
        #expect(LiveActivityStep.plan(content: Self.content(1), device: Self.device()) == .start(token: "st"))
        #expect(LiveActivityStep.plan(content: Self.content(1), device: Self.device(activity: "up")) == .update(token: "up"))
        #expect(LiveActivityStep.plan(content: Self.content(1), device: Self.device(starting: true)) == .nothing)
        #expect(LiveActivityStep.plan(content: Self.content(1), device: Self.device(start: nil)) == .nothing)
        #expect(LiveActivityStep.plan(content: .none, device: Self.device(activity: "up")) == .end(token: "up"))
        #expect(LiveActivityStep.plan(content: .none, device: Self.device()) == .nothing)
    }

    @Test func contentStateHasAtMostThreeLongestDownFirst() throws {
        let state = Self.content(5).contentState
        let down = try #require(state["down"]?.arrayValue)
        #expect(down.count == 3)
        #expect(down.map { $0["monitor_id"]?.intValue } == [1, 2, 3])
        #expect(down[0]["name"]?.stringValue == "M1")
        #expect(down[0]["cause"]?.stringValue == "timeout")
        #expect(down[0]["since"]?.intValue == 1_010)
        #expect(state["down_count"]?.intValue == 5)
    }

    @Test func startUpdateAndEndMessages() throws {
        let start = try #require(PushMessages.liveActivity(.start(token: "st"), content: Self.content(1), previous: .none,
                                                           id: "outbox-9", platform: "ios", hubID: "h1", hubName: "Ops",
                                                           timestamp: 5_000))
        #expect(start["id"]?.stringValue == "outbox-9")
        #expect(start["kind"]?.stringValue == "liveactivity")
        #expect(start["token"]?.stringValue == "st")
        let aps = try #require(start["payload"]?["aps"])
        #expect(aps["event"]?.stringValue == "start")
        #expect(aps["timestamp"]?.intValue == 5_000)
        #expect(aps["attributes-type"]?.stringValue == "OutageAttributes")
        #expect(aps["attributes"]?["hub_id"]?.stringValue == "h1")
        #expect(aps["attributes"]?["hub_name"]?.stringValue == "Ops")
        #expect(aps["alert"]?["title"]?.stringValue == "M1 is down")
        #expect(aps["content-state"]?["down_count"]?.intValue == 1)
        #expect(aps["stale-date"]?.intValue == Int64(5_000 + 4 * 3_600))
        #expect(start["payload"]?["hub_id"]?.stringValue == "h1")

        let grew = try #require(PushMessages.liveActivity(.update(token: "up"), content: Self.content(2), previous: Self.content(1),
                                                          id: "outbox-10", platform: "ios", hubID: "h1", hubName: "Ops",
                                                          timestamp: 5_001))
        #expect(grew["token"]?.stringValue == "up")
        #expect(grew["priority"]?.intValue == 10)
        #expect(grew["payload"]?["aps"]?["event"]?.stringValue == "update")
        #expect(grew["payload"]?["aps"]?["alert"]?["title"]?.stringValue == "2 monitors are down")
        #expect(grew["payload"]?["aps"]?["attributes-type"] == nil)

        let shrank = try #require(PushMessages.liveActivity(.update(token: "up"), content: Self.content(1), previous: Self.content(2),
                                                            id: "outbox-11", platform: "ios", hubID: "h1", hubName: "Ops",
                                                            timestamp: 5_002))
        #expect(shrank["priority"]?.intValue == 5)
        #expect(shrank["payload"]?["aps"]?["alert"] == nil)

        let end = try #require(PushMessages.liveActivity(.end(token: "up"), content: .none, previous: Self.content(1),
                                                         id: "outbox-12", platform: "ios", hubID: "h1", hubName: "Ops",
                                                         timestamp: 5_003))
        let endAps = try #require(end["payload"]?["aps"])
        #expect(endAps["event"]?.stringValue == "end")
        #expect(endAps["dismissal-date"]?.intValue == Int64(5_003 + 900))
        #expect(endAps["content-state"]?["down"]?.arrayValue?.isEmpty == true)
        #expect(endAps["content-state"]?["down_count"]?.intValue == 0)
        #expect(PushMessages.liveActivity(.nothing, content: .none, previous: .none, id: "x", platform: "ios", hubID: "h",
                                          hubName: "n", timestamp: 1) == nil)
    }

    /// SPEC §11: the sign-in approval request, and never the number in it.
    @Test func loginApprovalMessage() throws {
        let m = PushMessages.loginApproval(approvalID: "Zm9vYmFyYmF6cXV4cXV1eA", client: "203.0.113.7 · Firefox", to: Self.device,
                                           id: "outbox-9", hubID: "hub-abc", hubName: "Ops hub", expiresAt: 1_764_400_120)
        #expect(m["id"]?.stringValue == "outbox-9")
        #expect(m["token"]?.stringValue == "apns-token-1" && m["platform"]?.stringValue == "ios")
        #expect(m["kind"]?.stringValue == "alert" && m["priority"]?.intValue == 10)
        #expect(m["expires_at"]?.intValue == 1_764_400_120)
        #expect(m["collapse_id"]?.stringValue == "login-approval-Zm9vYmFyYmF6cXV4cXV1eA")
        let p = try #require(m["payload"])
        let aps = try #require(p["aps"])
        #expect(aps["category"]?.stringValue == "LOGIN_APPROVAL")
        #expect(aps["interruption-level"]?.stringValue == "time-sensitive")
        #expect(aps["sound"]?.stringValue == "default")
        #expect(aps["alert"]?["title"]?.stringValue == "Sign in to Ops hub?")
        #expect(aps["alert"]?["body"]?.stringValue?.hasPrefix("203.0.113.7 · Firefox is signing in") == true)
        #expect(p["hub_id"]?.stringValue == "hub-abc")
        #expect(p["approval_id"]?.stringValue == "Zm9vYmFyYmF6cXV4cXV1eA")
        #expect(p["client"]?.stringValue == "203.0.113.7 · Firefox")
        #expect(Set(p.objectValue?.keys ?? []) == ["aps", "hub_id", "approval_id", "client"])
    }
}
