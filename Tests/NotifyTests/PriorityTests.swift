import Store
import Testing
import Core
@testable import Notify

/// SPEC §10 priorities: how a notification's priority is resolved from the
/// monitor's own, and how each channel type maps it onto its own levels.
@Suite struct PriorityResolutionTests {
    struct Case: Sendable, CustomStringConvertible {
        var event: EventKind?
        var monitor: Int64?
        var expected: Int
        var description: String { "\(event?.rawValue ?? "test") monitor=\(monitor.map(String.init) ?? "null")" }
    }

    static let cases: [Case] = [
        // The defaults.
        Case(event: .monitorDown, monitor: nil, expected: 8), Case(event: .agentOffline, monitor: nil, expected: 8),
        Case(event: .monitorDegraded, monitor: nil, expected: 6), Case(event: .expiry, monitor: nil, expected: 5),
        Case(event: .monitorUp, monitor: nil, expected: 4), Case(event: .agentOnline, monitor: nil, expected: 4),
        Case(event: nil, monitor: nil, expected: 1),
        // The monitor's own: its alerts take it; up is never above 4.
        Case(event: .monitorDown, monitor: 3, expected: 3), Case(event: .monitorDegraded, monitor: 10, expected: 10),
        Case(event: .expiry, monitor: 0, expected: 0), Case(event: .monitorUp, monitor: 9, expected: 4),
        Case(event: .monitorUp, monitor: 2, expected: 2), Case(event: .monitorUp, monitor: 0, expected: 0),
        // Agents and tests have no monitor priority.
        Case(event: .agentOffline, monitor: 2, expected: 8), Case(event: nil, monitor: 9, expected: 1),
    ]

    @Test(arguments: cases) func resolve(_ c: Case) {
        #expect(AlertPriority.resolve(c.event, monitorPriority: c.monitor) == c.expected)
    }

    @Test func aNotificationKeepsTheDefaultOfItsEventUntilOneIsSet() {
        var n = down
        #expect(n.priority == 8)
        n.event = .monitorDegraded
        #expect(n.priority == 6)
        n.priority = 2
        n.event = .monitorDown
        #expect(n.priority == 2)
    }
}

@Suite struct PushPriorityBandTests {
    struct Band: Sendable, CustomStringConvertible {
        var priority: Int
        var level: String
        var sound: Bool
        var relay: Int64
        var description: String { "\(priority)" }
    }

    /// The table of SPEC §10, at both ends of every band.
    static let bands: [Band] = [
        Band(priority: 0, level: "passive", sound: false, relay: 5), Band(priority: 1, level: "passive", sound: false, relay: 5),
        Band(priority: 2, level: "active", sound: false, relay: 10), Band(priority: 3, level: "active", sound: false, relay: 10),
        Band(priority: 4, level: "active", sound: true, relay: 10), Band(priority: 7, level: "active", sound: true, relay: 10),
        Band(priority: 8, level: "time-sensitive", sound: true, relay: 10),
        Band(priority: 10, level: "time-sensitive", sound: true, relay: 10),
    ]

    @Test(arguments: bands) func messageOfEachBand(_ b: Band) throws {
        var n = down
        n.priority = b.priority
        n.eventID = 33
        n.publicURL = "https://hub.example.com"
        let m = PushMessages.alert(n, to: PushMessages.Device(platform: "ios", token: "t"), hubID: "hub-1")
        #expect(m["priority"]?.intValue == b.relay)
        let payload = try #require(m["payload"])
        #expect(payload["aps"]?["interruption-level"]?.stringValue == b.level)
        #expect(payload["aps"]?["sound"]?.stringValue == (b.sound ? "default" : nil))
        #expect(payload["aps"]?["category"]?.stringValue == "MONITOR_DOWN")
        // Beside hub_id: the priority, the event's id and the page to open.
        let keys = payload.objectValue?.keys ?? []
        #expect(Array(keys.prefix(3)) == ["aps", "hub_id", "priority"])
        #expect(payload["priority"]?.intValue == Int64(b.priority))
        #expect(payload["event_id"]?.intValue == 33)
        #expect(payload["url"]?.stringValue == "https://hub.example.com/incidents/7")
    }

    @Test func aTestHasNoEventIDAndLinksToTheNotifyPage() {
        var t = Notification.test(channelName: "Phones", at: 1_000, outboxID: 3)
        t.publicURL = "https://hub.example.com"
        let m = PushMessages.alert(t, to: PushMessages.Device(platform: "android", token: "t"), hubID: "h")
        #expect(m["payload"]?["event_id"] == .null)
        #expect(m["payload"]?["url"]?.stringValue == "https://hub.example.com/notify")
        #expect(m["payload"]?["priority"]?.intValue == 1)
    }

    @Test func quietedIsPassiveAndSilentAndNothingElse() throws {
        var n = down
        n.priority = 6
        let loud = PushMessages.alert(n, to: PushMessages.Device(platform: "ios", token: "t"), hubID: "h")
        let quiet = PushMessages.quieted(loud)
        #expect(quiet["payload"]?["aps"]?["interruption-level"]?.stringValue == "passive")
        #expect(quiet["payload"]?["aps"]?["sound"] == nil)
        // Everything else as it was: the alert, category, priority, relay priority, ids.
        var expected = try #require(loud.objectValue)
        var payload = try #require(expected["payload"]?.objectValue)
        var aps = try #require(payload["aps"]?.objectValue)
        aps["interruption-level"] = "passive"
        aps["sound"] = Optional<JSON>.none
        payload["aps"] = .object(aps)
        expected["payload"] = .object(payload)
        #expect(quiet == .object(expected))
    }
}

@Suite struct ChannelPriorityMappingTests {
    struct Levels: Sendable, CustomStringConvertible {
        var priority: Int
        var ntfy: Int64
        var pushover: Int64
        var pagerduty: String
        var opsgenie: String
        var description: String { "\(priority)" }
    }

    static let table: [Levels] = [
        Levels(priority: 0, ntfy: 1, pushover: -2, pagerduty: "info", opsgenie: "P5"),
        Levels(priority: 1, ntfy: 2, pushover: -1, pagerduty: "info", opsgenie: "P5"),
        Levels(priority: 3, ntfy: 2, pushover: -1, pagerduty: "info", opsgenie: "P4"),
        Levels(priority: 4, ntfy: 3, pushover: 0, pagerduty: "warning", opsgenie: "P3"),
        Levels(priority: 5, ntfy: 3, pushover: 0, pagerduty: "warning", opsgenie: "P3"),
        Levels(priority: 6, ntfy: 4, pushover: 0, pagerduty: "error", opsgenie: "P2"),
        Levels(priority: 7, ntfy: 4, pushover: 0, pagerduty: "error", opsgenie: "P2"),
        Levels(priority: 8, ntfy: 5, pushover: 1, pagerduty: "critical", opsgenie: "P1"),
        Levels(priority: 10, ntfy: 5, pushover: 1, pagerduty: "critical", opsgenie: "P1"),
    ]

    /// The notification's own priority reaches each service's request, not
    /// the event's default (a down alert of a priority-3 monitor is quiet).
    @Test(arguments: table) func eachServiceGetsItsLevel(_ l: Levels) throws {
        var n = Paging.down
        n.priority = l.priority
        func body(_ type: ChannelType, _ config: JSON) throws -> JSON {
            try JSON.parse(try #require(try Paging.sender(type, config).request(for: n)).bodyText)
        }
        #expect(try body(.ntfy, ["url": "https://ntfy.example.com", "topic": "ops"])["priority"]?.intValue == l.ntfy)
        #expect(try body(.pushover, ["app_token": .string(Paging.appToken), "user_key": .string(Paging.userKey)])["priority"]?
            .intValue == l.pushover)
        #expect(try body(.gotify, ["url": "https://push.example.com", "token": "tok"])["priority"]?.intValue == Int64(l.priority))
        #expect(try body(.pagerduty, ["routing_key": .string(Paging.routingKey)])["payload"]?["severity"]?.stringValue == l.pagerduty)
        #expect(try body(.opsgenie, ["api_key": "key"])["priority"]?.stringValue == l.opsgenie)
    }

    /// With the defaults nothing moved for down, degraded, up and tests;
    /// expiry (5) is ntfy's `default` now, one band below degraded.
    @Test func ntfyDefaults() {
        #expect(NtfyChannel.priority(AlertPriority.standard(.monitorDown)) == 5)
        #expect(NtfyChannel.priority(AlertPriority.standard(.monitorDegraded)) == 4)
        #expect(NtfyChannel.priority(AlertPriority.standard(.expiry)) == 3)
        #expect(NtfyChannel.priority(AlertPriority.standard(.monitorUp)) == 3)
        #expect(NtfyChannel.priority(AlertPriority.standard(nil)) == 2)
    }
}
