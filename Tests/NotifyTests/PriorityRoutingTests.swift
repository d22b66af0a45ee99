import Testing
import TestSupport
import Core
import Monitoring
import Notify
import Store

/// SPEC §10 against a real database on both engines: a monitor's priority
/// reaches the queued rows (and stays with them), a channel's min_priority
/// holds for alerts and reminders but not for the Test button, and every
/// event is described for the events feed, maintenance included.
@Suite struct PriorityRoutingTests {
    typealias Fixture = ReminderJobTests.Fixture

    static func setPriority(_ f: Fixture, monitor id: Int64, _ priority: Int64?) throws {
        try f.db.write { c in
            var m = try #require(try Monitors.find(c, id: id))
            m.priority = priority
            _ = try Monitors.updateConfig(c, m, now: 1_500)
        }
    }

    static func hook(_ f: Fixture, minPriority: Int64, reminder: Int64 = 0) throws -> Int64 {
        try f.db.write { c in
            var r = ChannelRecord(name: "hook-\(minPriority)", type: "webhook", enabled: true, events: [.monitorDown, .monitorUp],
                                  monitorIDs: [], reminderMinutes: reminder, config: JSONObject([("url", "http://127.0.0.1:9/h")]))
            r.minPriority = minPriority
            let id = try Channels.insert(c, r, now: 1_000).id
            try f.notifier.reload(c)
            return id
        }
    }

    static func bodies(_ f: Fixture, _ channel: Int64, kind: String = "alert") throws -> [JSON] {
        try f.db.read { try Outbox.forChannel($0, channelID: channel) }.filter { $0.kind == kind }.map { row in
            try JSON.parse(try #require(OutboundRequest(storedText: row.payload)).bodyText)
        }
    }

    @Test(arguments: TestEngine.all) func theMonitorsPriorityAndTheChannelsFloor(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        try Self.setPriority(f, monitor: id, 5)
        let open = try Self.hook(f, minPriority: 0)
        let floor5 = try Self.hook(f, minPriority: 5)
        let floor6 = try Self.hook(f, minPriority: 6)
        try f.goDown(id)
        try f.apply(id, at: f.t0 + 300, .up)
        // Down at 5 reaches floors 0 and 5, not 6; up gets min(4, 5) = 4 and reaches floor 0 only.
        let sent = try Self.bodies(f, open)
        #expect(sent.map { $0["event"]?.stringValue ?? "" } == ["monitor_down", "monitor_up"])
        #expect(sent.map { $0["priority"]?.intValue ?? -1 } == [5, 4])
        #expect(try Self.bodies(f, floor5).map { $0["priority"]?.intValue ?? -1 } == [5])
        #expect(try Self.bodies(f, floor6).isEmpty)
        // Each body names its event; the events carry what the alert said.
        let events = try f.db.read { try Events.list($0, monitorID: id, afterID: 0, limit: 10) }
        #expect(sent.map { $0["event_id"]?.intValue } == events.map { Optional($0.id) })
        #expect(events.map(\.priority) == [5, 4])
        #expect(events.first?.title == "API is down" && events.first?.body?.hasPrefix("HTTP 503 from hub") == true)
    }

    @Test(arguments: TestEngine.all) func aQueuedRowKeepsItsPriority(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let hook = try Self.hook(f, minPriority: 0)
        try f.goDown(id)
        try Self.setPriority(f, monitor: id, 2)
        #expect(try Self.bodies(f, hook).first?["priority"]?.intValue == 8, "queued with the default, kept")
    }

    @Test(arguments: TestEngine.all) func remindersRespectTheFloorTheTestButtonIgnoresIt(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        try Self.setPriority(f, monitor: id, 6)
        let low = try Self.hook(f, minPriority: 0, reminder: 5)
        let high = try Self.hook(f, minPriority: 7, reminder: 5)
        try f.goDown(id)
        #expect(try f.pass(at: 300) == 1, "one reminder, to the channel whose floor the priority reaches")
        let reminder = try #require(try Self.bodies(f, low, kind: "reminder").first)
        #expect(reminder["priority"]?.intValue == 6)
        // A reminder names the event it repeats, so the app finds it in the feed.
        let down = try f.db.read { try Events.list($0, monitorID: id, afterID: 0, limit: 10) }.last
        #expect(reminder["event_id"]?.intValue == down?.id)
        #expect(try Self.bodies(f, high, kind: "reminder").isEmpty && Self.bodies(f, high).isEmpty)
        // The Test button: priority 1, below the floor of 7, and sent anyway.
        let channel = try #require(f.notifier.current.first { $0.id == high })
        let ids = try f.db.write { c in
            try f.notifier.queue(c, channel: channel, notification: .test(channelName: "hook", at: 5_000, outboxID: 0), eventID: nil,
                                 now: 5_000)
        }
        #expect(ids.count == 1)
    }

    @Test(arguments: TestEngine.all) func eventsInMaintenanceAreDescribedToo(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        _ = try f.db.write { c in
            try MaintenanceWindows.insert(c, MaintenanceRecord(title: "deploy", monitorIDs: [], startsAt: f.t0 - 10, endsAt: f.t0 + 600,
                                                               createdBy: nil), now: f.t0 - 100)
        }
        try f.calendar.reload(now: f.t0)
        try f.goDown(id)
        let feed = EventFeed(database: f.db, publicURL: "https://hub.example.com")
        let items = try feed.items(afterID: 0, limit: 10)
        let down = try #require(items.last?.json)
        #expect(down["event"] == "monitor_down" && down["silenced"] == true && down["priority"] == 8)
        #expect(down["title"] == "API is down" && down["agent"] == .null)
        #expect(down["url"]?.stringValue?.hasPrefix("https://hub.example.com/incidents/") == true)
        #expect(try feed.items(afterID: try #require(items.last?.id), limit: 10).isEmpty)
    }
}
