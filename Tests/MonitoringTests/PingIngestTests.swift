import Core
@testable import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Heartbeat pings written in groups (`PingIngest`) must leave exactly what
/// writing them one by one leaves: the same ping and result rows, the same
/// incidents and events, the same final status.
@Suite struct PingIngestTests {
    /// Success, start and failure pings in an order that crosses every path:
    /// pending → up, quiet successes, up → down, a second failure while down,
    /// recovery, a start ping (no verdict) among successes.
    static let sequence: [HeartbeatPing] =
        Array(repeating: .success, count: 10) + [.failure(exitCode: 3)] + Array(repeating: .success, count: 5)
        + [.failure(exitCode: nil), .failure(exitCode: 2)] + Array(repeating: .success, count: 3) + [.start, .success]

    /// A started service on a fresh database, stopped and removed on deinit.
    final class Hub {
        let dir: String
        let db: Database
        let service: MonitoringService
        init(_ engine: TestEngine) throws {
            var template = Array("/tmp/pingtxt-pings-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try engine.open(in: dir, readers: 2)
            // The retention pass runs at start on its own thread; on a busy
            // machine it can reach the ping rows while a test is writing them
            // and keep only the last 100 (seen in CI: a count below 320).
            var settings = MonitoringSettings()
            settings.retention.pingsKept = 100_000
            service = MonitoringService(database: db, settings: settings)
            try service.start()
        }
        deinit {
            service.stop()
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }
    }

    struct Outcome: Equatable {
        var pings: [String]
        var results: [String]
        var incidents: [String]
        var events: [String]
        var status: String?
        var lastExitCode: Int64?
    }

    private func run(_ engine: TestEngine, grouped: Bool) throws -> Outcome {
        let hub = try Hub(engine)
        defer { withExtendedLifetime(hub) {} }
        let (db, service) = (hub.db, hub.service)
        var config = MonitorConfig(name: "backup", type: .heartbeat, target: nil)
        config.retries = 0
        config.heartbeat = .period(seconds: 3600, grace: 3600)
        let monitor = try service.create(config)
        let key = try #require(monitor.pingKey)

        let done = Semaphore()
        let failures = Counter()
        // Grouped: the writers (the hub's, or PostgreSQL's lanes) are held
        // busy while every ping is queued, so they all land in one group.
        // Otherwise each ping is awaited alone.
        let gate = Semaphore()
        if grouped { for lane in service.pingIngest.lanes { lane.submit { _ in gate.wait() } } }
        for ping in Self.sequence {
            service.ping(key: key, ping, body: Array("log".utf8), client: "10.0.0.1") { result in
                if case .failure = result { failures.add(1) }
                if case .success(false) = result { failures.add(1) }
                done.post()
            }
            if !grouped { done.wait() }
        }
        if grouped {
            for _ in service.pingIngest.lanes { gate.post() }
            for _ in Self.sequence { done.wait() }
        }
        #expect(failures.current == 0)

        return try db.read { c in
            let pings = try c.query("SELECT kind, exit_code FROM heartbeat_pings WHERE monitor_id = ? ORDER BY id",
                                    [.integer(monitor.id)]).map { r in "\(try r.text("kind")):\(try r.optionalInt("exit_code").map(String.init) ?? "-")" }
            let results = try c.query("SELECT status, error FROM check_results WHERE monitor_id = ? ORDER BY id",
                                      [.integer(monitor.id)]).map { r in "\(try r.text("status")):\(try r.optionalText("error") ?? "")" }
            let incidents = try c.query("SELECT kind, cause, closed_at FROM incidents WHERE monitor_id = ? ORDER BY id",
                                        [.integer(monitor.id)]).map { r in
                "\(try r.text("kind")):\(try r.text("cause")):\(try r.optionalInt("closed_at") == nil ? "open" : "closed")"
            }
            let events = try Events.list(c, monitorID: monitor.id, afterID: 0, limit: 100).map { "\($0.kind):\($0.cause)" }
            return Outcome(pings: pings, results: results, incidents: incidents, events: events,
                           status: try Monitors.status(c, id: monitor.id),
                           lastExitCode: try Heartbeats.state(c, monitorID: monitor.id).lastExitCode)
        }
    }

    @Test(arguments: TestEngine.all) func aGroupLeavesWhatPingsOneByOneLeave(engine: TestEngine) throws {
        let alone = try run(engine, grouped: false)
        let grouped = try run(engine, grouped: true)
        #expect(grouped == alone)
        // And what one by one leaves is right in itself.
        #expect(alone.pings.count == Self.sequence.count)
        #expect(alone.results.count == Self.sequence.count - 1, "a start ping has no verdict")
        #expect(alone.incidents.count == 2 && alone.incidents.allSatisfy { $0.hasSuffix(":closed") })
        #expect(alone.events.filter { $0.hasPrefix("monitor_down") }.count == 2)
        #expect(alone.events.filter { $0.hasPrefix("monitor_up") }.count == 2)
        #expect(alone.status == "up")
        #expect(alone.lastExitCode == 2)
    }

    /// Pings from many clients at once (on PostgreSQL: groups on two lanes at
    /// the same time): whatever order they are applied in, the stored
    /// results, in id order, must tell the incidents' story exactly.
    @Test(arguments: TestEngine.all) func concurrentGroupsStayConsistent(engine: TestEngine) throws {
        let hub = try Hub(engine)
        defer { withExtendedLifetime(hub) {} }
        let (db, service) = (hub.db, hub.service)
        var config = MonitorConfig(name: "jobs", type: .heartbeat, target: nil)
        config.retries = 0
        config.heartbeat = .period(seconds: 3600, grace: 3600)
        let monitor = try service.create(config)
        let key = try #require(monitor.pingKey)
        let (clients, each) = (8, 40)
        let failed = Counter()
        let threads = (0..<clients).map { t in
            startThread(name: "client-\(t)") {
                let done = Semaphore()
                for i in 0..<each {
                    // Several clients in flight at once, each waiting for its answer.
                    let ping: HeartbeatPing = (t * each + i) % 7 == 3 ? .failure(exitCode: 1) : .success
                    service.ping(key: key, ping, body: [], client: nil) { result in
                        if case .success(true) = result {} else { failed.add(1) }
                        done.post()
                    }
                    done.wait()
                }
            }
        }
        for t in threads { t.join() }
        #expect(failed.current == 0)
        try db.read { c in
            let results = try c.query("SELECT status FROM check_results WHERE monitor_id = ? ORDER BY id",
                                      [.integer(monitor.id)]).map { try $0.text("status") }
            #expect(results.count == clients * each)
            #expect(try c.scalar("SELECT count(*) FROM heartbeat_pings WHERE monitor_id = ?", [.integer(monitor.id)])?.integerValue
                    == Int64(clients * each))
            var downs = 0
            var previous = "pending"
            for r in results {
                if r == "down" && previous != "down" { downs += 1 }
                previous = r
            }
            let incidents = try c.query("SELECT closed_at FROM incidents WHERE monitor_id = ? ORDER BY id", [.integer(monitor.id)])
            #expect(incidents.count == downs)
            #expect(try incidents.filter { try $0.optionalInt("closed_at") == nil }.count == (previous == "down" ? 1 : 0))
            #expect(try Monitors.status(c, id: monitor.id) == previous)
        }
    }
}
