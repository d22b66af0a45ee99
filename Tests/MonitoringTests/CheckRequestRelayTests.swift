import Core
@testable import Monitoring
import Store
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Check-now between two hubs on one PostgreSQL database when every
/// wake-up is lost (no channel at all): the request and the answer are in
/// the database, so the hubs' resync at each cluster beat (`clusterTick`,
/// called by hand here) still carries them. Latency, never correctness.
@Suite(.enabled(if: TestEngine.all.contains(.postgres))) struct CheckRequestRelayTests {
    typealias Hub = ClusterTestHub

    @Test func checkNowThroughTheDatabaseWhenEveryWakeUpIsLost() throws {
        let url = try TestEngine.postgres.url(in: "/tmp")
        let a = try Hub(url: url, node: "a"), b = try Hub(url: url, node: "b")
        let created = try a.service.agents.create(name: "eu", tokenHash: Array("eu-token".utf8))
        var config = MonitorConfig(name: "api", type: .tcp, target: "127.0.0.1:9")
        config.locations = ["eu"]
        let id = try a.service.create(config).id
        try b.settledBeat()
        // The agent calls hub B; hub A learns it is online at its beat.
        let agent = b.service.agents.contact(try #require(b.service.agents.authenticate(tokenHash: Array("eu-token".utf8))),
                                             version: "1", address: "10.0.0.9")
        try b.service.writer.perform { _ in }
        try a.settledBeat()
        #expect(a.service.agents.roster.agent(id: created.id)?.status == .online)

        let delivered = Mutex<[CheckRequest]?>(nil)
        b.service.agents.poll(agent, waitSeconds: 30) { checks in delivered.withLock { $0 = checks } }
        let outcome = Mutex<MonitoringService.CheckNowOutcome?>(nil)
        let service = a.service
        let checker = startThread(name: "test-check-now") {
            // Not inside withLock: the test looks at `outcome` while it waits.
            let r = try? service.checkNow(id: id, waitMs: 20_000)
            outcome.withLock { $0 = r }
        }
        // No wake-up reaches B: its poll stays parked until B's resync.
        usleep(700_000)
        #expect(delivered.withLock { $0 } == nil)
        b.beat()
        let handedOut = Time.monotonicNanos() + 5_000_000_000
        while delivered.withLock({ $0 }) == nil && Time.monotonicNanos() < handedOut { usleep(20_000) }
        let request = try #require(delivered.withLock { $0 }?.first, "B's resync hands the request to the poll parked there")
        #expect(request.monitorID == id)

        // The answer is uploaded to B; A finds it at its own resync.
        _ = try b.service.agents.ingest([UploadedResult(monitorID: id, atMs: Time.nowMillis(), outcome: .down, latencyMs: 40,
                                                        statusCode: 503, error: "HTTP 503", requestID: request.id)], from: agent)
        usleep(300_000)
        #expect(outcome.withLock { $0 } == nil, "A has not looked yet")
        a.beat()
        checker.join()
        let result = try #require(outcome.withLock { $0 })
        #expect(result.missingLocations == [])
        #expect(result.results.map(\.location) == ["eu"] && result.results.first?.statusCode == 503)
        // The asking hub withdrew its rows: nothing is left to hand out.
        #expect(try a.db.read { try CheckRequests.openAgents($0, now: Time.nowMillis()) } == [])
        #expect(try a.db.read { try $0.scalar("SELECT count(*) FROM check_requests") } == .integer(0))
    }
}

extension ClusterTestHub {
    /// A beat whose re-read of check requests has ended: one still
    /// running late (a loaded machine) would otherwise find a request
    /// asked for afterwards, as if a wake-up had reached this hub.
    func settledBeat() throws {
        beat()
        let relay = try #require(service.agents.relay)
        let asked = relay.resync(), until = Time.monotonicNanos() + 10_000_000_000
        while !relay.resyncFinished(asked) && Time.monotonicNanos() < until { usleep(5_000) }
        #expect(relay.resyncFinished(asked))
    }
}
