import Core
import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Held alerts in the database (SPEC §12), on both engines: the hold is on
/// the incident, so a fresh recorder and job (a restarted hub) decide it,
/// and a hold is decided once however often the job runs.
@Suite struct DependencyHoldTests {
    final class Fixture {
        let dir: String
        let db: Database
        let recorder: ResultRecorder

        init(_ engine: TestEngine) throws {
            var template = Array("/tmp/pingtxt-deptest-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try engine.open(in: dir, readers: 2)
            recorder = ResultRecorder(hubLocation: "hub", calendar: MaintenanceCalendar(database: db))
        }

        deinit {
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }

        func monitor(_ name: String, parents: [Int64] = []) throws -> Int64 {
            var config = MonitorConfig(name: name, type: .tcp, target: "127.0.0.1:9")
            config.retries = 0
            var record = MonitorRecord(name: name, type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10, retries: 0)
            config.write(into: &record)
            return try db.write { c in
                let id = try Monitors.insert(c, record, now: 1_000).id
                try Dependencies.replace(c, monitorID: id, parents: parents)
                return id
            }
        }

        func apply(_ id: Int64, at: Int64, _ outcome: CheckOutcome) throws {
            try db.write { c in
                _ = try recorder.apply(.result(CheckResult(at: at, outcome: outcome, latencyMs: 20, error: "refused")),
                                       monitorID: id, on: c, returning: false)
            }
        }

        func downs(_ id: Int64) throws -> [EventRecord] {
            try db.read { try Events.list($0, monitorID: id, afterID: 0, limit: 100) }.filter { $0.kind == "monitor_down" }
        }

        func ups(_ id: Int64) throws -> Int {
            try db.read { try Events.list($0, monitorID: id, afterID: 0, limit: 100) }.filter { $0.kind == "monitor_up" }.count
        }

        func incident(_ id: Int64) throws -> IncidentRecord? {
            try db.read { try Incidents.findOpen($0, monitorID: id, kind: "down") }
        }

        func timeline(_ incident: Int64) throws -> [String] {
            try db.read { try Incidents.timeline($0, incidentID: incident) }.map(\.event)
        }
    }

    @Test(arguments: TestEngine.all) func suppressedThenAlertedAsIndependentFailure(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let parent = try f.monitor("router")
        let child = try f.monitor("api", parents: [parent])
        for id in [parent, child] { try f.apply(id, at: 2_000, .up) }

        try f.apply(child, at: 2_060, .down)
        #expect(try f.downs(child).isEmpty, "held until the parent reports")
        #expect(try f.incident(child)?.heldUntil == 2_060 + 120)
        try f.apply(parent, at: 2_061, .down)
        #expect(try f.downs(parent).count == 1)
        let suppressed = try #require(try f.incident(child))
        #expect(suppressed.suppressedBy == parent && suppressed.heldUntil == nil)
        #expect(try f.downs(child).isEmpty)
        #expect(try f.timeline(suppressed.id).contains("suppressed"))

        // Checks go on while suppressed; the parent recovers, the child's
        // next result is still down: its alert goes out then.
        try f.apply(child, at: 2_120, .down)
        try f.apply(parent, at: 2_121, .up)
        #expect(try f.downs(child).isEmpty, "waits for the child's next result")
        try f.apply(child, at: 2_180, .down)
        let alerts = try f.downs(child)
        #expect(alerts.count == 1 && alerts.first?.at == 2_180 && alerts.first?.incidentID == suppressed.id)
        #expect(try f.incident(child)?.suppressedBy == nil)
        #expect(try f.timeline(suppressed.id).suffix(2) == ["parent_recovered", "alerted"])
        try f.apply(child, at: 2_240, .up)
        #expect(try f.ups(child) == 1, "an alerted incident recovers with monitor_up")
    }

    @Test(arguments: TestEngine.all) func bothRecoverTogetherSendsNothingForTheChild(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let parent = try f.monitor("router")
        let child = try f.monitor("api", parents: [parent])
        for id in [parent, child] { try f.apply(id, at: 2_000, .up) }
        try f.apply(parent, at: 2_060, .down)
        try f.apply(child, at: 2_060, .down)
        #expect(try f.incident(child)?.suppressedBy == parent, "the parent had already reported")
        try f.apply(parent, at: 2_120, .up)
        try f.apply(child, at: 2_120, .up)
        #expect(try f.downs(child).isEmpty)
        #expect(try f.ups(child) == 0, "a suppressed incident that closes sends no monitor_up")
        #expect(try f.ups(parent) == 1)
    }

    @Test(arguments: TestEngine.all) func holdSurvivesARestartAndEndsOnceAtTheTimeout(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let parent = try f.monitor("router")
        let child = try f.monitor("api", parents: [parent])
        for id in [parent, child] { try f.apply(id, at: 2_000, .up) }
        try f.apply(child, at: 2_060, .down)
        // A new job over the same database: what a restarted hub (or
        // another hub sharing it) runs.
        let job = DependencyJob(database: f.db,
                                recorder: ResultRecorder(hubLocation: "hub", calendar: MaintenanceCalendar(database: f.db)))
        #expect(try job.runOnce(now: 2_179) == 0)
        #expect(try f.downs(child).isEmpty)
        #expect(try job.runOnce(now: 2_180) == 1)
        #expect(try job.runOnce(now: 2_181) == 0)
        #expect(try f.downs(child).map(\.at) == [2_180], "the parent never reported: alerted after two intervals, once")
    }

    /// The flags that let the result path skip the lookups (migration 0026)
    /// follow every edit of the edges, on both ends of each edge.
    @Test(arguments: TestEngine.all) func dependencyFlagsFollowTheEdges(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let a = try f.monitor("a"), b = try f.monitor("b")
        let child = try f.monitor("child", parents: [a])
        func flags(_ id: Int64) throws -> (Bool, Bool) {
            let r = try #require(try f.db.read { try Monitors.find($0, id: id) })
            return (r.hasParents, r.hasChildren)
        }
        #expect(try flags(child) == (true, false) && flags(a) == (false, true) && flags(b) == (false, false))
        try f.db.write { try Dependencies.replace($0, monitorID: child, parents: [b]) }
        #expect(try flags(a) == (false, false) && flags(b) == (false, true), "moving the edge moves the flag")
        let second = try f.monitor("second", parents: [b])
        try f.db.write { try Dependencies.replace($0, monitorID: child, parents: []) }
        #expect(try flags(child) == (false, false))
        #expect(try flags(b) == (false, true), "b still has a child")
        try f.db.write { try Dependencies.replace($0, monitorID: second, parents: []) }
        #expect(try flags(b) == (false, false))
    }

    /// A monitor in no dependency records its results without any hold or
    /// lookup, and a child's down still waits for its parent.
    @Test(arguments: TestEngine.all) func unrelatedMonitorAlertsAtOnce(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let lone = try f.monitor("lone")
        try f.apply(lone, at: 2_000, .up)
        try f.apply(lone, at: 2_060, .down)
        #expect(try f.downs(lone).count == 1)
        #expect(try f.incident(lone)?.heldUntil == nil)
    }
}
