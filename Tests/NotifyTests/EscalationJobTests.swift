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

/// Escalation against a real database on both engines: incidents opened and
/// closed by the real recorder (so step 1 rides with the real alert), later
/// steps by `EscalationJob.runOnce` at an injected time (no thread).
@Suite struct EscalationJobTests {
    static let t0: Int64 = 1_764_410_520

    final class Fixture {
        let dir: String
        let db: Database
        let calendar: MaintenanceCalendar
        let notifier = Notifier()
        let recorder: ResultRecorder
        let clock = TestClock()
        let wakes = WakeCounter()
        let job: EscalationJob

        init(_ engine: TestEngine) throws {
            var template = Array("/tmp/pingtxt-escalation-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try engine.open(in: dir, readers: 2)
            calendar = MaintenanceCalendar(database: db)
            recorder = ResultRecorder(hubLocation: "hub", calendar: calendar, sink: notifier)
            job = Self.job(db, notifier, clock, wakes, calendar)
        }

        /// Another job on the same database: a restarted hub, or a second one.
        static func job(_ db: Database, _ notifier: Notifier, _ clock: TestClock, _ wakes: WakeCounter,
                        _ calendar: MaintenanceCalendar) -> EscalationJob {
            EscalationJob(database: db, notifier: notifier, clock: { clock.now }, wake: { wakes.n.add(1, ordering: .relaxed) },
                          quiet: { id, at in calendar.isInMaintenance(monitorID: id, at: at) })
        }

        deinit {
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }

        @discardableResult
        func channel(_ name: String, events: [EventKind] = [], enabled: Bool = true) throws -> Int64 {
            let id = try db.write { c throws in
                try Channels.insert(c, ChannelRecord(name: name, type: "webhook", enabled: enabled, events: events, monitorIDs: [],
                                                     reminderMinutes: 0, config: JSONObject([("url", .string("http://127.0.0.1:9/\(name)"))])),
                                    now: 1_000).id
            }
            try db.read { c in try notifier.reload(c) }
            return id
        }

        func policy(_ steps: [([Int64], Int64)], repeat count: Int64 = 0) throws -> Int64 {
            try db.write { c throws in
                try EscalationPolicies.insert(c, EscalationPolicyRecord(name: "Ops", repeatCount: count, steps: steps.map {
                    EscalationStepRecord(channelIDs: $0.0, delayMinutes: $0.1)
                }), now: 1_000).id
            }
        }

        func monitor(policy: Int64?, name: String = "API", degradedAfterMs: Int64? = nil) throws -> Int64 {
            var config = MonitorConfig(name: name, type: .tcp, target: "127.0.0.1:9")
            config.retries = 0
            config.degradedAfterMs = degradedAfterMs
            config.escalationPolicyID = policy
            var record = MonitorRecord(name: name, type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10, retries: 0)
            config.write(into: &record)
            return try db.write { try Monitors.insert($0, record, now: 1_000) }.id
        }

        func apply(_ id: Int64, at: Int64, _ outcome: CheckOutcome, latencyMs: Int = 20) throws {
            try db.write { c throws in
                _ = try recorder.apply(.result(CheckResult(at: at, outcome: outcome, latencyMs: latencyMs,
                                                           error: outcome == .down ? "HTTP 503" : nil)), monitorID: id, on: c)
            }
        }

        /// Up a minute before `t0`, down at `t0`: the incident opens at `t0`.
        func goDown(_ id: Int64) throws {
            try apply(id, at: EscalationJobTests.t0 - 60, .up)
            try apply(id, at: EscalationJobTests.t0, .down)
        }

        /// One pass at `t0 + seconds`; the rows it queued.
        func pass(at seconds: Int64, _ job: EscalationJob? = nil) throws -> Int {
            clock.t.store(EscalationJobTests.t0 + seconds, ordering: .relaxed)
            return try (job ?? self.job).runOnce()
        }

        /// The events of the outbox rows each channel got, in order.
        func sent(_ channel: Int64) throws -> [String] {
            try db.read { c throws in
                let kinds = Dictionary(try Events.list(c, monitorID: nil, afterID: 0, limit: 10_000).map { ($0.id, $0.kind) },
                                       uniquingKeysWith: { a, _ in a })
                return try Outbox.forChannel(c, channelID: channel).map { row in row.eventID.flatMap { kinds[$0] } ?? "\(row.kind):none" }
            }
        }

        func incident(_ monitorID: Int64) throws -> IncidentRecord {
            try #require(try db.read { try Incidents.list($0, status: nil, monitorID: monitorID, beforeID: nil, limit: 1) }.first)
        }

        func state(_ incidentID: Int64) throws -> EscalationStateRecord? {
            try db.read { try Escalations.find($0, incidentID: incidentID) }
        }

        func escalated(_ incidentID: Int64) throws -> [String] {
            try db.read { try Incidents.timeline($0, incidentID: incidentID) }.filter { $0.event == "escalated" }.map(\.detail)
        }

        /// What `MonitoringService.acknowledge` does, in one transaction.
        func acknowledge(_ incidentID: Int64, throughTheSink: Bool = true) throws {
            try db.write { c throws in
                _ = try Incidents.acknowledge(c, id: incidentID, by: "a@example.com", userID: 1, at: EscalationJobTests.t0 + 30)
                if throughTheSink { try notifier.incidentAcknowledged(try Incidents.find(c, id: incidentID)!, by: "a@example.com", on: c) }
            }
        }
    }

    @Test(arguments: TestEngine.all) func stepOneRidesWithTheAlertThenEachStepAtItsTime(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let subscribed = try f.channel("hook", events: [.monitorDown, .monitorUp])
        let pager = try f.channel("Telegram")
        let boss = try f.channel("Email")
        let off = try f.channel("Pushover", enabled: false)
        let bystander = try f.channel("Slack", events: [.monitorDown, .monitorUp])
        let policy = try f.policy([([subscribed, pager], 1), ([boss, off], 2)])
        let id = try f.monitor(policy: policy)
        try f.goDown(id)
        let incident = try f.incident(id)
        // Step 1 at once, to a channel not subscribed to anything; the
        // subscribed one gets the alert once, not once per reason.
        #expect(try f.sent(subscribed) == ["monitor_down"])
        #expect(try f.sent(pager) == ["monitor_down"])
        #expect(try f.sent(bystander) == ["monitor_down"], "its own subscription, as without escalation")
        #expect(try f.sent(boss).isEmpty)
        #expect(try f.escalated(incident.id) == ["step 1: hook, Telegram"])
        let started = try #require(try f.state(incident.id))
        #expect(started.step == 1 && started.nextAt == Self.t0 + 60)

        #expect(try f.pass(at: 59) == 0)
        #expect(try f.pass(at: 60) == 1, "step 2: the enabled one of its two channels")
        #expect(f.wakes.n.load(ordering: .relaxed) == 1, "the delivery worker is woken")
        #expect(try f.sent(boss) == ["monitor_down"])
        #expect(try f.sent(off).isEmpty, "a disabled channel gets no step")
        #expect(try f.escalated(incident.id) == ["step 1: hook, Telegram", "step 2: Email"])
        #expect(try f.state(incident.id)?.nextAt == nil, "repeat 0: the chain ran out after its last step")
        #expect(try f.pass(at: 100_000) == 0)

        // Recovery: monitor_up to every channel alerted for the incident,
        // subscribed to it or not, once each.
        try f.apply(id, at: Self.t0 + 300, .up)
        #expect(try f.sent(subscribed) == ["monitor_down", "monitor_up"])
        #expect(try f.sent(pager) == ["monitor_down", "monitor_up"])
        #expect(try f.sent(boss) == ["monitor_down", "monitor_up"])
        #expect(try f.sent(bystander) == ["monitor_down", "monitor_up"])
        #expect(try f.sent(off).isEmpty)
    }

    @Test(arguments: TestEngine.all) func theChainRepeatsThenRunsOut(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let pager = try f.channel("pager")
        let id = try f.monitor(policy: try f.policy([([pager], 1)], repeat: 2))
        try f.goDown(id)
        #expect(try f.pass(at: 59) == 0)
        #expect(try f.pass(at: 61) == 1, "round 2, a second late")
        #expect(try f.pass(at: 120) == 0, "the next round counts from when the last one went")
        #expect(try f.pass(at: 121) == 1)
        #expect(try f.pass(at: 1_000) == 0, "repeat 2: three rounds in all")
        #expect(try f.sent(pager) == ["monitor_down", "monitor_down", "monitor_down"])
        #expect(try f.escalated(try f.incident(id).id) == ["step 1: pager", "step 1: pager", "step 1: pager"])
    }

    @Test(arguments: TestEngine.all) func acknowledgeOrCloseStopsItForGood(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let a = try f.channel("a")
        let b = try f.channel("b")
        let policy = try f.policy([([a], 1), ([b], 1)], repeat: 3)
        let acked = try f.monitor(policy: policy, name: "acked")
        let ackedAlone = try f.monitor(policy: policy, name: "acked without the sink")
        let closed = try f.monitor(policy: policy, name: "recovers")
        for m in [acked, ackedAlone, closed] { try f.goDown(m) }
        #expect(try f.sent(a).count == 3)
        try f.acknowledge(try f.incident(acked).id)
        #expect(try f.state(try f.incident(acked).id)?.nextAt == nil, "stopped in the acknowledging transaction")
        // Acknowledged behind the sink's back: the job sees it and stops.
        try f.acknowledge(try f.incident(ackedAlone).id, throughTheSink: false)
        try f.apply(closed, at: Self.t0 + 30, .up)
        #expect(try f.pass(at: 60) == 0)
        #expect(try f.pass(at: 10_000) == 0)
        #expect(try f.sent(b).isEmpty, "no step 2 for any of them")
        for m in [acked, ackedAlone, closed] { #expect(try f.state(try f.incident(m).id)?.nextAt == nil) }
    }

    @Test(arguments: TestEngine.all) func maintenanceHoldsTheStepUntilTheWindowEnds(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let pager = try f.channel("pager")
        let boss = try f.channel("boss")
        let id = try f.monitor(policy: try f.policy([([pager], 1), ([boss], 1)]))
        _ = try f.db.write { c throws in
            try MaintenanceWindows.insert(c, MaintenanceRecord(title: "deploy", monitorIDs: [id], startsAt: Self.t0 - 100,
                                                               endsAt: Self.t0 + 300, createdBy: nil), now: Self.t0 - 200)
        }
        try f.calendar.reload(now: Self.t0 - 200)
        try f.goDown(id)
        let incident = try f.incident(id)
        #expect(try f.sent(pager).isEmpty, "silenced: the alert and step 1 wait")
        let held = try #require(try f.state(incident.id))
        #expect(held.step == 0 && held.nextAt == Self.t0, "step 1 is due, held back")
        #expect(try f.pass(at: 0) == 0)
        #expect(try f.pass(at: 299) == 0)
        #expect(try f.pass(at: 300) == 1, "the window ended: step 1 goes, not skipped")
        #expect(try f.sent(pager) == ["monitor_down"])
        #expect(try f.pass(at: 359) == 0)
        #expect(try f.pass(at: 360) == 1, "step 2 counts from when step 1 actually went")
        #expect(try f.sent(boss) == ["monitor_down"])
    }

    @Test(arguments: TestEngine.all) func aRestartedOrSecondJobSendsEachStepOnce(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let boss = try f.channel("boss")
        let id = try f.monitor(policy: try f.policy([([try f.channel("pager")], 1), ([boss], 1)]))
        try f.goDown(id)
        let second = Fixture.job(f.db, f.notifier, f.clock, f.wakes, f.calendar)
        #expect(try f.pass(at: 60) == 1)
        #expect(try f.pass(at: 60, second) == 0, "already advanced: the other job finds nothing due")
        #expect(try f.pass(at: 61, second) == 0)
        let incident = try f.incident(id)
        #expect(try second.escalate(incidentID: incident.id, now: Self.t0 + 60) == 0, "a stale claim writes nothing")
        #expect(try f.sent(boss) == ["monitor_down"])
        #expect(try f.escalated(incident.id).count == 2)
    }

    @Test(arguments: TestEngine.all) func onlyDownIncidentsOfMonitorsWithAPolicyEscalate(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let pager = try f.channel("pager")
        let policy = try f.policy([([pager], 1)], repeat: 1)
        let slow = try f.monitor(policy: policy, name: "slow", degradedAfterMs: 100)
        let plain = try f.monitor(policy: nil, name: "plain")
        try f.apply(slow, at: Self.t0 - 60, .up)
        try f.apply(slow, at: Self.t0, .up, latencyMs: 500)
        #expect(try f.incident(slow).kind == "degraded")
        try f.goDown(plain)
        #expect(try f.state(try f.incident(slow).id) == nil)
        #expect(try f.state(try f.incident(plain).id) == nil)
        #expect(try f.pass(at: 600) == 0)
        #expect(try f.sent(pager).isEmpty)
    }

    @Test(arguments: TestEngine.all) func aDeletedPolicyStopsItsRunningChains(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let pager = try f.channel("pager")
        let policy = try f.policy([([pager], 1)], repeat: 5)
        let id = try f.monitor(policy: policy)
        try f.goDown(id)
        try f.db.write { c throws in
            var m = try #require(try Monitors.find(c, id: id))
            m.escalationPolicyID = nil
            _ = try Monitors.updateConfig(c, m, now: 2_000)
            #expect(try EscalationPolicies.delete(c, id: policy))
        }
        #expect(try f.pass(at: 60) == 0)
        #expect(try f.state(try f.incident(id).id)?.nextAt == nil)
        #expect(try f.sent(pager) == ["monitor_down"])
    }
}
