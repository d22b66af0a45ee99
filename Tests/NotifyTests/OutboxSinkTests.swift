import Testing
import TestSupport
import Core
import Monitoring
import Notify
import Store
#if canImport(Glibc)
import Glibc
#endif

/// The recorder writes each event's outbox rows in the event's transaction.
@Suite struct OutboxSinkTests {
    final class Fixture {
        let dir: String
        let db: Database
        let calendar: MaintenanceCalendar
        let notifier = Notifier()
        let recorder: ResultRecorder

        init(_ engine: TestEngine) throws {
            var template = Array("/tmp/pingtxt-notifytest-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try engine.open(in: dir, readers: 4)
            calendar = MaintenanceCalendar(database: db)
            recorder = ResultRecorder(hubLocation: "hub", calendar: calendar, sink: notifier)
        }

        deinit {
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }

        func monitor(degradedAfterMs: Int64? = nil) throws -> Int64 {
            var config = MonitorConfig(name: "API", type: .tcp, target: "127.0.0.1:9")
            config.retries = 0
            config.degradedAfterMs = degradedAfterMs
            var record = MonitorRecord(name: "API", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10, retries: 0)
            config.write(into: &record)
            return try db.write { try Monitors.insert($0, record, now: 1_000) }.id
        }

        func channel(_ type: String, events: [EventKind], monitors: [Int64] = [], config: JSON, enabled: Bool = true) throws -> Int64 {
            let config = try #require(config.objectValue)
            let id = try db.write { c in
                try Channels.insert(c, ChannelRecord(name: type, type: type, enabled: enabled, events: events, monitorIDs: monitors,
                                                     reminderMinutes: 0, config: config), now: 1_000).id
            }
            try db.read { c in try notifier.reload(c) }
            return id
        }

        func apply(_ id: Int64, at: Int64, _ outcome: CheckOutcome, latencyMs: Int = 20, error: String? = nil) throws {
            try db.write { c in
                _ = try recorder.apply(.result(CheckResult(at: at, outcome: outcome, latencyMs: latencyMs, error: error)),
                                       monitorID: id, on: c)
            }
        }

        func outbox(_ channel: Int64) throws -> [OutboxRecord] { try db.read { try Outbox.forChannel($0, channelID: channel) } }
    }

    @Test(arguments: TestEngine.all) func downAndUpQueueSignedRequestsForMatchingChannels(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let hook = try f.channel("webhook", events: [.monitorDown, .monitorUp],
                                 config: ["url": "http://127.0.0.1:9/hook", "secret": "k"])
        let other = try f.channel("slack", events: [.monitorDown], monitors: [id + 1],
                                  config: ["webhook_url": "https://hooks.example/x"])
        let off = try f.channel("discord", events: [.monitorDown], config: ["webhook_url": "https://d.example/x"],
                                enabled: false)
        let mail = try f.channel("email", events: [.monitorDown], config: ["to": "ops@example.com"])
        try f.apply(id, at: 1_764_410_460, .up)
        try f.apply(id, at: 1_764_410_520, .down, error: "HTTP 503")
        try f.apply(id, at: 1_764_410_820, .up)
        let rows = try f.outbox(hook)
        #expect(rows.count == 2)
        #expect(try f.outbox(other).isEmpty && f.outbox(off).isEmpty)
        // Email: one smtp row for monitor_down only, naming its own id.
        let mails = try f.outbox(mail)
        #expect(mails.count == 1 && mails.first?.transport == "smtp" && rows.allSatisfy { $0.transport == "http" })
        let email = try JSON.parse(try #require(mails.first).payload)
        #expect(email["id"]?.stringValue == "outbox-\(mails[0].id)" && email["to"] == ["ops@example.com"])
        #expect(email["subject"]?.stringValue?.contains("API is down") == true)
        let first = try #require(OutboundRequest(storedText: rows[0].payload))
        let second = try #require(OutboundRequest(storedText: rows[1].payload))
        #expect(first.url == "http://127.0.0.1:9/hook")
        #expect(first.bodyText.hasPrefix(#"{"id":"outbox-\#(rows[0].id)","event":"monitor_down","kind":"alert","#))
        #expect(first.bodyText.contains("API is down"))
        #expect(second.bodyText.contains(#""event":"monitor_up""#) && second.bodyText.contains("up again after 5 min"))
        #expect(first.headers.contains { $0.name == "X-Pingtxt-Signature" && $0.value.hasPrefix("sha256=") })
        #expect(rows.allSatisfy { $0.status == "pending" && $0.kind == "alert" && $0.eventID != nil })
    }

    /// SPEC §6: "`degraded` that recovers sends `monitor_up` too".
    @Test(arguments: TestEngine.all) func degradedThatRecoversSendsMonitorUp(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor(degradedAfterMs: 1_000)
        let hook = try f.channel("webhook", events: [.monitorDegraded, .monitorUp], config: ["url": "http://127.0.0.1:9/h"])
        try f.apply(id, at: 1_764_410_460, .up)
        try f.apply(id, at: 1_764_410_520, .up, latencyMs: 2_500)
        try f.apply(id, at: 1_764_410_700, .up)
        let bodies = try f.outbox(hook).map { try #require(OutboundRequest(storedText: $0.payload)).bodyText }
        #expect(bodies.count == 2)
        #expect(bodies.first?.contains(#""event":"monitor_degraded""#) == true)
        #expect(bodies.last?.contains(#""event":"monitor_up""#) == true)
        #expect(bodies.last?.contains("up again after 3 min") == true)
    }

    @Test(arguments: TestEngine.all) func maintenanceQueuesNothing(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let hook = try f.channel("webhook", events: [.monitorDown, .monitorUp], config: ["url": "http://127.0.0.1:9/h"])
        _ = try f.db.write { c in
            try MaintenanceWindows.insert(c, MaintenanceRecord(title: "deploy", monitorIDs: [], startsAt: 2_050,
                                                               endsAt: 2_500, createdBy: nil), now: 2_000)
        }
        try f.calendar.reload(now: 2_000)
        try f.apply(id, at: 2_000, .up)
        try f.apply(id, at: 2_060, .down, error: "refused")
        try f.apply(id, at: 2_120, .up)
        #expect(try f.outbox(hook).isEmpty)
    }

    /// An event without a monitor is about an agent: the notification names
    /// it (its location), and says since when it was silent / away.
    @Test(arguments: TestEngine.all) func agentEventsNameTheAgent(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let ch = try f.channel("webhook", events: [.agentOffline, .agentOnline], config: ["url": "http://127.0.0.1:9/h"])
        let agent = try f.db.write { c in try Agents.insert(c, name: "eu-west", tokenHash: [1, 2, 3], now: 1_000) }
        try f.db.write { c in
            try Agents.touch(c, id: agent.id, at: 1_700_000_000, version: nil, address: nil)
            try Agents.setStatus(c, id: agent.id, status: "online", since: 1_699_990_000)
            var offline = EventRecord(kind: "agent_offline", monitorID: nil, incidentID: nil, at: 1_700_000_030,
                                      cause: "no contact", locations: ["eu-west"], suppressed: false)
            offline.id = try Events.insert(c, offline)
            try f.notifier.didInsert(offline, on: c)
            try Agents.setStatus(c, id: agent.id, status: "offline", since: 1_700_000_030)
            var online = EventRecord(kind: "agent_online", monitorID: nil, incidentID: nil, at: 1_700_000_630,
                                     cause: "", locations: ["eu-west"], suppressed: false)
            online.id = try Events.insert(c, online)
            try f.notifier.didInsert(online, on: c)
        }
        let rows = try f.outbox(ch)
        #expect(rows.count == 2)
        let first = try JSON.parse(rows[0].payload).text, second = try JSON.parse(rows[1].payload).text
        #expect(first.contains("Agent eu-west is offline since 22:13 UTC"), "since its last contact")
        #expect(second.contains("Agent eu-west is online again after 10 min"), "away since it went offline")
        #expect(!first.contains("monitor 0"))
    }
}
