import Testing
import TestSupport
import Core
import Monitoring
import Notify
import Store
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The reminder job against a real database, with incidents opened by the
/// real recorder and an injected clock (no thread: each pass is `runOnce`).
@Suite struct ReminderJobTests {
    /// The down check lands here, so the incident's `opened_at` is `t0`.
    static let t0: Int64 = 1_764_410_520

    final class Fixture {
        let dir: String
        let db: Database
        let calendar: MaintenanceCalendar
        let notifier = Notifier()
        let recorder: ResultRecorder
        let clock = TestClock()
        let wakes = WakeCounter()
        let job: ReminderJob

        init(_ engine: TestEngine, outboxRetentionDays: Int64 = 7) throws {
            var template = Array("/tmp/pingtxt-reminders-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try engine.open(in: dir, readers: 4)
            calendar = MaintenanceCalendar(database: db)
            recorder = ResultRecorder(hubLocation: "hub", calendar: calendar, sink: notifier)
            let (clock, wakes, calendar) = (clock, wakes, self.calendar)
            job = ReminderJob(database: db, notifier: notifier, outboxRetentionDays: outboxRetentionDays,
                              clock: { clock.now }, wake: { wakes.n.add(1, ordering: .relaxed) },
                              quiet: { id, at in calendar.isInMaintenance(monitorID: id, at: at) })
        }

        deinit {
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }

        func monitor(_ name: String = "API", degradedAfterMs: Int64? = nil) throws -> Int64 {
            var config = MonitorConfig(name: name, type: .tcp, target: "127.0.0.1:9")
            config.retries = 0
            config.degradedAfterMs = degradedAfterMs
            var record = MonitorRecord(name: name, type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10, retries: 0)
            config.write(into: &record)
            return try db.write { try Monitors.insert($0, record, now: 1_000) }.id
        }

        @discardableResult
        func channel(events: [EventKind] = [.monitorDown, .monitorUp], monitors: [Int64] = [], reminder: Int64,
                     enabled: Bool = true) throws -> Int64 {
            let id = try db.write { c in
                try Channels.insert(c, ChannelRecord(name: "hook", type: "webhook", enabled: enabled, events: events,
                                                     monitorIDs: monitors, reminderMinutes: reminder,
                                                     config: JSONObject([("url", "http://127.0.0.1:9/hook")])), now: 1_000).id
            }
            try db.read { c in try notifier.reload(c) }
            return id
        }

        func setReminder(_ channelID: Int64, minutes: Int64) throws {
            try db.write { c in
                var r = try Channels.find(c, id: channelID)!
                r.reminderMinutes = minutes
                _ = try Channels.update(c, r, now: 2_000)
                try notifier.reload(c)
            }
        }

        func apply(_ id: Int64, at: Int64, _ outcome: CheckOutcome, latencyMs: Int = 20, error: String? = nil) throws {
            try db.write { c in
                _ = try recorder.apply(.result(CheckResult(at: at, outcome: outcome, latencyMs: latencyMs, error: error)),
                                       monitorID: id, on: c)
            }
        }

        /// An up check a minute before `t0`, then the down check at `t0`.
        func goDown(_ id: Int64) throws {
            try apply(id, at: t0 - 60, .up)
            try apply(id, at: t0, .down, error: "HTTP 503")
        }

        var t0: Int64 { ReminderJobTests.t0 }

        /// One pass at `t0 + seconds`; returns the rows it queued.
        func pass(at seconds: Int64) throws -> Int {
            clock.t.store(t0 + seconds, ordering: .relaxed)
            return try job.runOnce()
        }

        func reminders(_ channel: Int64) throws -> [OutboxRecord] {
            try db.read { try Outbox.forChannel($0, channelID: channel) }.filter { $0.kind == "reminder" }
        }

        func incident(_ monitorID: Int64) throws -> IncidentRecord {
            try db.read { try Incidents.openFor($0, monitorID: monitorID) }.first!
        }
    }

    @Test(arguments: TestEngine.all) func firstReminderAtOpenedPlusNThenEveryN(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let hook = try f.channel(reminder: 5)
        try f.goDown(id)
        let incident = try f.incident(id)
        #expect(incident.openedAt == Self.t0)
        #expect(try f.pass(at: 0) == 0)
        #expect(try f.pass(at: 299) == 0)
        #expect(try f.pass(at: 300) == 1)
        #expect(f.wakes.n.load(ordering: .relaxed) == 1, "the delivery worker is woken")
        #expect(try f.pass(at: 310) == 0)
        #expect(try f.pass(at: 599) == 0)
        #expect(try f.pass(at: 600) == 1)
        #expect(try f.pass(at: 900) == 1)
        let rows = try f.reminders(hook)
        #expect(rows.count == 3)
        #expect(rows.map(\.createdAt) == [Self.t0 + 300, Self.t0 + 600, Self.t0 + 900])
        let first = try #require(OutboundRequest(storedText: rows[0].payload))
        let body = try JSON.parse(first.bodyText)
        #expect(body["kind"] == "reminder" && body["event"] == "monitor_down")
        #expect(body["incident_id"]?.intValue == incident.id && body["cause"] == "HTTP 503")
        #expect(body["since"]?.stringValue == Time.rfc3339(Self.t0) && body["at"]?.stringValue == Time.rfc3339(Self.t0 + 300))
        #expect(body["title"]?.stringValue?.contains("Reminder: API is down") == true)
        #expect(body["locations"] == .array(["hub"]))
        #expect(rows.allSatisfy { $0.eventID == nil && $0.status == "pending" })
        let slot = try f.db.read { try Reminders.all($0) }
        #expect(slot == [ReminderRecord(channelID: hook, incidentID: incident.id, nextAt: Self.t0 + 1_200, sent: 3)])
    }

    @Test(arguments: TestEngine.all) func acknowledgedOrClosedIncidentsGetNoMore(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let a = try f.monitor("A"), b = try f.monitor("B")
        let hook = try f.channel(reminder: 5)
        try f.goDown(a)
        try f.goDown(b)
        #expect(try f.pass(at: 300) == 2)
        let acked = try f.incident(a)
        #expect(try f.db.write { try Incidents.acknowledge($0, id: acked.id, by: "ops@example.com", userID: 1, at: Self.t0 + 301) })
        try f.apply(b, at: Self.t0 + 302, .up)
        #expect(try f.pass(at: 600) == 0)
        #expect(try f.pass(at: 3_600) == 0)
        #expect(try f.db.read { try Reminders.all($0) }.isEmpty, "their slots are gone")
        #expect(try f.reminders(hook).count == 2)
    }

    @Test(arguments: TestEngine.all) func nothingWhileQuietAndTheSlotMovesOn(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let hook = try f.channel(reminder: 5)
        try f.goDown(id)
        _ = try f.db.write { c in
            try MaintenanceWindows.insert(c, MaintenanceRecord(title: "deploy", monitorIDs: [id], startsAt: Self.t0 + 200,
                                                               endsAt: Self.t0 + 700, createdBy: nil), now: Self.t0 + 100)
        }
        try f.calendar.reload(now: Self.t0 + 100)
        #expect(try f.pass(at: 300) == 0)
        #expect(try f.pass(at: 600) == 0)
        // The window ended at +700; the slot had moved on to +900.
        #expect(try f.pass(at: 720) == 0)
        #expect(try f.pass(at: 899) == 0)
        #expect(try f.pass(at: 900) == 1)
        #expect(try f.reminders(hook).map(\.createdAt) == [Self.t0 + 900])
    }

    @Test(arguments: TestEngine.all) func channelsWithoutRemindersOrNotRoutedGetNone(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let off = try f.channel(reminder: 0)
        let upOnly = try f.channel(events: [.monitorUp], reminder: 5)
        let other = try f.channel(monitors: [id + 100], reminder: 5)
        let disabled = try f.channel(reminder: 5, enabled: false)
        let routed = try f.channel(monitors: [id], reminder: 5)
        try f.goDown(id)
        #expect(try f.pass(at: 300) == 1)
        #expect(try f.pass(at: 7_200) == 1)
        for ch in [off, upOnly, other, disabled] { #expect(try f.reminders(ch).isEmpty) }
        #expect(try f.reminders(routed).count == 2)
        #expect(try f.db.read { try Reminders.all($0) }.map(\.channelID) == [routed])
        // Reminders switched off on the routed channel: its slot goes too.
        try f.setReminder(routed, minutes: 0)
        #expect(try f.pass(at: 9_000) == 0)
        #expect(try f.db.read { try Reminders.all($0) }.isEmpty)
    }

    @Test(arguments: TestEngine.all) func noBurstAfterALongGap(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let hook = try f.channel(reminder: 5)
        try f.goDown(id)
        #expect(try f.pass(at: 300) == 1)
        // The hub was off for ten hours (120 slots missed): one reminder.
        #expect(try f.pass(at: 36_300) == 1)
        #expect(try f.pass(at: 36_301) == 0)
        #expect(try f.pass(at: 36_599) == 0)
        #expect(try f.pass(at: 36_600) == 1)
        #expect(try f.reminders(hook).count == 3)
    }

    @Test(arguments: TestEngine.all) func aFirstPassLongAfterTheAlertSendsOne(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let hook = try f.channel(reminder: 5)
        try f.goDown(id)
        // No slot stored yet (e.g. the channel was just given reminders).
        #expect(try f.pass(at: 3_000) == 1)
        #expect(try f.pass(at: 3_299) == 0)
        #expect(try f.pass(at: 3_300) == 1)
        #expect(try f.reminders(hook).count == 2)
    }

    @Test(arguments: TestEngine.all) func aChangedIntervalTakesEffectAtTheNextSlot(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let hook = try f.channel(reminder: 5)
        try f.goDown(id)
        #expect(try f.pass(at: 300) == 1)
        try f.setReminder(hook, minutes: 1)
        #expect(try f.pass(at: 360) == 0, "the slot set under 5 min stands")
        #expect(try f.pass(at: 600) == 1)
        #expect(try f.pass(at: 660) == 1)
        #expect(try f.reminders(hook).map(\.createdAt) == [Self.t0 + 300, Self.t0 + 600, Self.t0 + 660])
    }

    @Test(arguments: TestEngine.all) func aDeletedChannelLosesItsSlots(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let hook = try f.channel(reminder: 5)
        let other = try f.channel(reminder: 5)
        try f.goDown(id)
        #expect(try f.pass(at: 300) == 2)
        try f.db.write { c in
            _ = try Channels.delete(c, id: hook)
            try f.notifier.reload(c)
        }
        #expect(try f.db.read { try Reminders.all($0) }.map(\.channelID) == [other], "cascaded")
        #expect(try f.pass(at: 600) == 1)
        #expect(try f.reminders(other).count == 2)
    }

    @Test(arguments: TestEngine.all) func degradedRemindsWithItsOwnEvent(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor(degradedAfterMs: 1_000)
        let hook = try f.channel(events: [.monitorDegraded], reminder: 1)
        try f.apply(id, at: Self.t0 - 60, .up)
        try f.apply(id, at: Self.t0, .up, latencyMs: 2_500)
        #expect(try f.incident(id).kind == "degraded")
        #expect(try f.pass(at: 60) == 1)
        let body = try JSON.parse(try #require(OutboundRequest(storedText: f.reminders(hook)[0].payload)).bodyText)
        #expect(body["event"] == "monitor_degraded" && body["kind"] == "reminder")
        #expect(body["title"]?.stringValue?.contains("Reminder: API is degraded") == true)
    }

    @Test(arguments: TestEngine.all) func settledOutboxRowsArePrunedHourly(engine: TestEngine) throws {
        let f = try Fixture(engine, outboxRetentionDays: 7)
        let hook = try f.channel(reminder: 0)
        let day: Int64 = 86_400
        let now = Self.t0
        func row(createdAt: Int64, settle: String?) throws -> Int64 {
            try f.db.write { c in
                let id = try Outbox.insert(c, OutboxRecord(channelID: hook, eventID: nil, kind: "test", payload: "{}",
                                                           nextAttemptAt: createdAt), now: createdAt)
                _ = try Outbox.claim(c, now: createdAt, claimUntil: createdAt + 60, limit: 100)
                switch settle {
                case "sent": try Outbox.markSent(c, id: id, now: createdAt)
                case "failed": try Outbox.markFailed(c, id: id, error: "HTTP 404")
                default: try Outbox.scheduleRetry(c, id: id, at: now + 60, error: "HTTP 503")
                }
                return id
            }
        }
        _ = try row(createdAt: now - 8 * day, settle: "sent")
        _ = try row(createdAt: now - 8 * day, settle: "failed")
        let oldPending = try row(createdAt: now - 8 * day, settle: nil)
        let recentSent = try row(createdAt: now - 6 * day, settle: "sent")
        func ids() throws -> [Int64] { try f.db.read { try Outbox.forChannel($0, channelID: hook) }.map(\.id) }
        #expect(try f.pass(at: 0) == 0)
        #expect(try ids() == [oldPending, recentSent], "settled rows past raw_days go; outstanding ones stay")
        // Not again within the hour; then once more.
        let later = try row(createdAt: now - 9 * day, settle: "sent")
        #expect(try f.pass(at: 1_800) == 0)
        #expect(try ids().contains(later))
        #expect(try f.pass(at: 3_600) == 0)
        #expect(try !ids().contains(later))
    }

    /// `stop` wakes the thread out of its 15 s wait and joins it.
    @Test(arguments: TestEngine.all) func threadStartsAndStops(engine: TestEngine) throws {
        let f = try Fixture(engine)
        f.job.start()
        f.job.stop()
    }
}

final class WakeCounter: Sendable {
    let n = Atomic<Int>(0)
}
