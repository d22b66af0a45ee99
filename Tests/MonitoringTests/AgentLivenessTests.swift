import Core
import Monitoring
import Store
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Quorum over online locations and agent liveness, with an injected clock:
/// the real MonitoringService and AgentService on a real SQLite file, no
/// HTTP. Nothing is started (no scheduler, no watcher thread): the tests
/// call `tick(nowMs:)` themselves.
@Suite struct AgentLivenessTests {
    final class TestClock: Sendable {
        let ms = Mutex<Int64>(1_800_000_000_000)
        var now: Int64 { ms.withLock { $0 } }
        func advance(_ d: Int64) { ms.withLock { $0 += d } }
    }

    final class RecordingSink: EventSink {
        let events = Mutex<[EventRecord]>([])
        func didInsert(_ event: EventRecord, on c: Connection) throws(StoreError) { events.withLock { $0.append(event) } }
        var kinds: [String] { events.withLock { $0.map(\.kind) } }
    }

    final class Fixture {
        let dir: String
        let db: Database
        let clock = TestClock()
        let sink = RecordingSink()
        let service: MonitoringService

        init(_ engine: TestEngine, pollInterval: Int64 = 10) throws {
            var template = Array("/tmp/pingtxt-agenttest-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try engine.open(in: dir, readers: 4)
            var settings = MonitoringSettings()
            settings.agentPollInterval = pollInterval
            let clock = self.clock
            service = MonitoringService(database: db, settings: settings, eventSink: sink, agentClock: { clock.now })
        }

        deinit {
            service.stop()
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }

        var agents: AgentService { service.agents }

        func agent(_ name: String) throws -> AgentRoster.Agent {
            let r = try agents.create(name: name, tokenHash: Array(name.utf8))
            return agents.contact(try #require(agents.roster.agent(id: r.id)), version: "1.0", address: "10.0.0.1")
        }

        func monitor(locations: [String], confirm: Int64) throws -> Int64 {
            var config = MonitorConfig(name: "api", type: .tcp, target: "127.0.0.1:9")
            config.retries = 0
            config.locations = locations
            config.confirmLocations = confirm
            return try service.create(config).id
        }

        /// One result from `agent` at the clock's time (plus `offsetMs`).
        @discardableResult
        func report(_ agent: AgentRoster.Agent, _ id: Int64, _ outcome: CheckOutcome, offsetMs: Int64 = 0,
                    requestID: String? = nil) throws -> (accepted: Int, ignored: Int) {
            try agents.ingest([UploadedResult(monitorID: id, atMs: clock.now + offsetMs, outcome: outcome, latencyMs: 12,
                                           error: outcome == .down ? "connection refused" : nil, requestID: requestID)],
                              from: agent)
        }

        func status(_ id: Int64) throws -> String { try service.find(id).status }

        /// Lets queued (submitted, not awaited) writes commit.
        func flush() throws { try service.writer.perform { _ in } }
    }

    @Test func onlineLocationsOfAMonitor() {
        var c = MonitorConfig(name: "x", type: .http, target: "http://a/")
        let online = ["eu", "us"]
        #expect(ResultRecorder.onlineLocations(c, hub: "hub", online: online) == ["hub", "eu", "us"])
        c.locations = ["eu"]
        #expect(ResultRecorder.onlineLocations(c, hub: "hub", online: online) == ["eu"])
        c.locations = ["hub", "us", "asia"]
        #expect(ResultRecorder.onlineLocations(c, hub: "hub", online: online) == ["hub", "us"], "offline or unknown agents do not count")
        c.locations = ["asia"]
        #expect(ResultRecorder.onlineLocations(c, hub: "hub", online: online).isEmpty)
        let hb = MonitorConfig(name: "h", type: .heartbeat, target: nil)
        #expect(ResultRecorder.onlineLocations(hb, hub: "hub", online: online) == ["hub"], "heartbeats are received by the hub")
    }

    @Test func rosterGoesOfflineAfterThreePollIntervalsUnlessAPollIsOpen() {
        let roster = AgentRoster()
        roster.load([AgentRecord(id: 1, name: "eu", tokenHash: [1], createdAt: 0, statusSince: 0),
                     AgentRecord(id: 2, name: "us", tokenHash: [2], createdAt: 0, statusSince: 0)])
        #expect(roster.onlineNames().isEmpty, "pending agents do not count")
        let first = roster.contact(id: 1, nowMs: 100_000, version: "1.2", address: "a", persistEveryMs: 10_000)
        #expect(first?.cameOnline == true && first?.persist == true)
        #expect(roster.contact(id: 1, nowMs: 105_000, version: nil, address: nil, persistEveryMs: 10_000)?.persist == false)
        _ = roster.contact(id: 2, nowMs: 105_000, version: nil, address: nil, persistEveryMs: 10_000)
        #expect(roster.onlineNames() == ["eu", "us"])
        #expect(roster.sweep(nowMs: 134_999, timeoutMs: 30_000).isEmpty)
        #expect(roster.sweep(nowMs: 135_000, timeoutMs: 30_000, connected: [2]).map(\.name) == ["eu"])
        #expect(roster.sweep(nowMs: 200_000, timeoutMs: 30_000, connected: [2]).isEmpty, "an open poll is contact")
        #expect(roster.onlineNames() == ["us"])
        #expect(roster.agent(tokenHash: [1])?.version == "1.2")
        let back = roster.contact(id: 1, nowMs: 210_000, version: nil, address: nil, persistEveryMs: 10_000)
        #expect(back?.cameOnline == true && back?.agent.statusSince == 210)
        roster.remove(id: 1)
        #expect(roster.agent(tokenHash: [1]) == nil && roster.onlineNames() == ["us"])
    }

    @Test func afterAHubRestartAgentsGetAFullTimeout() {
        let roster = AgentRoster()
        // Online when the hub stopped, last heard of long ago (the hub was down).
        roster.load([AgentRecord(id: 1, name: "eu", tokenHash: [1], createdAt: 0, lastSeenAt: 1_000, status: "online",
                                 statusSince: 500)])
        roster.startCountingSilence(nowMs: 5_000_000)
        #expect(roster.sweep(nowMs: 5_029_999, timeoutMs: 30_000).isEmpty)
        #expect(roster.agent(id: 1)?.lastSeenMs == 1_000_000, "last contact is not invented")
        #expect(roster.sweep(nowMs: 5_030_000, timeoutMs: 30_000).map(\.name) == ["eu"])
        #expect(roster.counts() == [.pending: 0, .online: 0, .offline: 1])
        #expect(roster.onlineViews().countedSince.isEmpty)
    }

    @Test(arguments: TestEngine.all) func quorumCountsOnlyOnlineLocations(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let eu = try f.agent("eu"), us = try f.agent("us")
        let id = try f.monitor(locations: ["eu", "us"], confirm: 2)
        try f.report(eu, id, .up)
        try f.report(us, id, .up)
        #expect(try f.status(id) == "up")
        f.clock.advance(1_000)
        try f.report(us, id, .down)
        #expect(try f.status(id) == "up", "one of two locations is not a quorum of 2")

        // eu falls silent: after 3 × 10 s it is offline and only us counts.
        f.clock.advance(20_000)
        f.agents.contact(us, version: nil, address: nil)
        f.clock.advance(10_000)
        f.agents.tick(nowMs: f.clock.now)
        #expect(f.agents.roster.onlineNames() == ["us"])
        try f.report(us, id, .down)
        #expect(try f.status(id) == "down", "1 of 1 online location")
        let incident = try #require(try f.db.read { try Incidents.findOpen($0, monitorID: id, kind: "down") })
        #expect(incident.locations == ["us"])

        // eu returns and sees it up: 1 of 2 online locations sees it down.
        f.clock.advance(1_000)
        f.agents.contact(eu, version: nil, address: nil)
        try f.report(eu, id, .up)
        #expect(try f.status(id) == "up")

        try f.flush()
        let agentEvents = f.sink.events.withLock { $0.filter { $0.kind.hasPrefix("agent_") } }
        #expect(agentEvents.map(\.kind) == ["agent_offline", "agent_online"])
        #expect(agentEvents.allSatisfy { $0.monitorID == nil && $0.locations == ["eu"] })
        let row = try #require(try f.db.read { try Agents.find($0, name: "eu") })
        #expect(row.status == "online" && row.version == "1.0" && row.address == "10.0.0.1")
    }

    @Test(arguments: TestEngine.all) func anOfflineAgentsViewIsForgottenUntilItReportsAgain(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let eu = try f.agent("eu"), us = try f.agent("us")
        let id = try f.monitor(locations: ["eu", "us"], confirm: 1)
        try f.report(us, id, .up)
        try f.report(eu, id, .down)
        #expect(try f.status(id) == "down")
        // eu goes silent and offline; us sees it up: up.
        f.clock.advance(25_000)
        f.agents.contact(us, version: nil, address: nil)
        f.clock.advance(6_000)
        f.agents.tick(nowMs: f.clock.now)
        try f.report(us, id, .up)
        #expect(try f.status(id) == "up")
        // eu is back but has not reported: its old "down" does not count.
        f.clock.advance(2_000)
        f.agents.contact(eu, version: nil, address: nil)
        try f.report(us, id, .up)
        #expect(try f.status(id) == "up", "a view from before it went offline is forgotten")
        // Its first result after coming back counts afresh (retries 0: one failure is down).
        try f.report(eu, id, .down, offsetMs: 1)
        #expect(try f.status(id) == "down")
    }

    @Test func countedSinceInThePureStateMachine() {
        let policy = MonitorPolicy(retries: 1, confirmLocations: 1, locations: ["hub", "eu"], countedSince: ["eu": 100])
        var state = MonitorState(status: .up, statusSince: 0)
        // eu saw two failures (down) before going offline at 100.
        state.locations["eu"] = LocationState(outcome: .down, consecutiveFailures: 2, lastAt: 90, lastError: "timeout")
        state.locations["hub"] = LocationState(outcome: .up, lastAt: 95)
        let (afterHub, _) = StateMachine.apply(.result(CheckResult(at: 110, location: "hub", outcome: .up)), to: state,
                                               policy: policy, inMaintenance: false)
        #expect(afterHub.status == .up, "eu's stale down is not counted")
        // eu's first failure after coming back is within retries again.
        let (afterEU, _) = StateMachine.apply(.result(CheckResult(at: 111, location: "eu", outcome: .down, error: "timeout")),
                                              to: afterHub, policy: policy, inMaintenance: false)
        #expect(afterEU.locations["eu"]?.consecutiveFailures == 1 && afterEU.status == .up)
    }

    @Test(arguments: TestEngine.all) func livenessEventsAreWrittenOnceWithTheStatus(engine: TestEngine) throws {
        let f = try Fixture(engine, pollInterval: 2)
        let eu = try f.agent("eu")
        try f.flush()
        #expect(try f.db.read { try Agents.find($0, id: eu.id) }?.status == "online")
        #expect(f.sink.kinds.isEmpty, "pending → online sends nothing")
        f.clock.advance(5_999)
        f.agents.tick(nowMs: f.clock.now)
        #expect(f.agents.roster.onlineNames() == ["eu"])
        f.clock.advance(1)
        f.agents.tick(nowMs: f.clock.now)
        f.agents.tick(nowMs: f.clock.now + 1_000)
        try f.flush()
        #expect(f.sink.kinds == ["agent_offline"])
        let offline = try #require(try f.db.read { try Agents.find($0, id: eu.id) })
        #expect(offline.status == "offline" && offline.statusSince == f.clock.now / 1000)
        f.agents.contact(eu, version: nil, address: nil)
        f.agents.contact(eu, version: nil, address: nil)
        try f.flush()
        #expect(f.sink.kinds == ["agent_offline", "agent_online"])
        #expect(try f.db.read { try Agents.find($0, id: eu.id) }?.status == "online")
    }

    @Test(arguments: TestEngine.all) func uploadsAreIdempotentAndOnlyForAssignedMonitors(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let eu = try f.agent("eu")
        let mine = try f.monitor(locations: ["eu"], confirm: 1)
        let other = try f.monitor(locations: ["hub"], confirm: 1)
        let result = UploadedResult(monitorID: mine, atMs: f.clock.now - 500, outcome: .up, latencyMs: 40, statusCode: 200)
        #expect(try f.agents.ingest([result], from: eu) == (1, 0))
        #expect(try f.agents.ingest([result], from: eu) == (0, 1), "a retried upload stores nothing twice")
        let stray = UploadedResult(monitorID: other, atMs: f.clock.now, outcome: .down)
        let future = UploadedResult(monitorID: mine, atMs: f.clock.now + 600_000, outcome: .down)
        let ancient = UploadedResult(monitorID: mine, atMs: f.clock.now - 90_000_000, outcome: .down)
        let gone = UploadedResult(monitorID: 9_999, atMs: f.clock.now, outcome: .down)
        #expect(try f.agents.ingest([stray, future, ancient, gone], from: eu) == (0, 4))
        let rows = try f.db.read { try CheckResults.range($0, monitorID: mine, fromMs: 0, toMs: Int64.max) }
        #expect(rows.count == 1 && rows[0].atMs == f.clock.now - 500 && rows[0].location == "eu" && rows[0].statusCode == 200)
        #expect(try f.db.read { try CheckResults.range($0, monitorID: other, fromMs: 0, toMs: Int64.max) }.isEmpty)
        // The monitors document: the assigned monitor only, a stable ETag.
        let (body, etag) = f.agents.monitorsDocument(for: eu)
        let doc = try JSON.parse(body)
        #expect(doc["monitors"]?.arrayValue?.compactMap { $0["id"]?.intValue } == [mine])
        #expect(doc["monitors"]?.arrayValue?.first?["status"] == nil, "configuration only")
        #expect(f.agents.monitorsDocument(for: eu).etag == etag)
        _ = try f.service.pause(id: mine)
        #expect(f.agents.monitorsDocument(for: eu).etag != etag)
    }

    @Test(arguments: TestEngine.all) func checkNowAsksOnlineAgentsThroughTheirPollAndNamesTheMissing(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let eu = try f.agent("eu"), us = try f.agent("us")
        let id = try f.monitor(locations: ["eu", "us"], confirm: 1)
        let delivered = Mutex<[CheckRequest]>([])
        let done = Semaphore()
        f.agents.poll(eu, waitSeconds: 30) { checks in
            delivered.withLock { $0 = checks }
            done.post()
        }
        let outcome = Mutex<MonitoringService.CheckNowOutcome?>(nil)
        let service = f.service
        let finished = Semaphore()
        let worker = startThread(name: "test-check") {
            outcome.withLock { $0 = try? service.checkNow(id: id, waitMs: 1_500) }
            finished.post()
        }
        #expect(done.wait(timeoutNanos: 5_000_000_000), "the parked poll gets the request at once")
        let request = try #require(delivered.withLock { $0.first })
        #expect(request.monitorID == id)
        // Only the agent asked may answer a request.
        try f.report(us, id, .down, requestID: request.id)
        try f.report(eu, id, .up, offsetMs: 1, requestID: request.id)
        #expect(finished.wait(timeoutNanos: 10_000_000_000))
        worker.join()
        let result = try #require(outcome.withLock { $0 })
        #expect(result.results.map(\.location) == ["eu"])
        #expect(result.results.first?.outcome == .up)
        #expect(result.missingLocations == ["us"], "us never polled, so it did not answer")
    }
}
