import Core
import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The runtime's database side on real SQLite files: results through the
/// recorder (incidents, timeline, events in one transaction) and the
/// retention job's roll-ups and pruning.
@Suite struct RecorderAndRetentionTests {
    final class Fixture {
        let dir: String
        let db: Database
        let calendar: MaintenanceCalendar
        let recorder: ResultRecorder

        init(_ engine: TestEngine) throws {
            var template = Array("/tmp/pingtxt-montest-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try engine.open(in: dir, readers: 4)
            calendar = MaintenanceCalendar(database: db)
            recorder = ResultRecorder(hubLocation: "hub", calendar: calendar)
        }

        deinit {
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }

        func monitor(retries: Int64 = 0) throws -> Int64 {
            var config = MonitorConfig(name: "api", type: .tcp, target: "127.0.0.1:9")
            config.retries = retries
            var record = MonitorRecord(name: "api", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10, retries: retries)
            config.write(into: &record)
            return try db.write { try Monitors.insert($0, record, now: 1_000) }.id
        }

        func apply(_ id: Int64, at: Int64, _ outcome: CheckOutcome, error: String? = nil) throws -> MonitorRecord? {
            try db.write { c in
                try recorder.apply(.result(CheckResult(at: at, outcome: outcome, latencyMs: 20, error: error)), monitorID: id, on: c)
            }
        }

        func events(_ id: Int64) throws -> [EventRecord] {
            try db.read { try Events.list($0, monitorID: id, afterID: 0, limit: 100) }
        }
    }

    @Test(arguments: TestEngine.all) func downAndUpWriteIncidentTimelineAndEvents(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        #expect(try f.apply(id, at: 2_000, .up)?.status == "up")
        #expect(try f.events(id).isEmpty) // first result after pending: nothing sent
        let down = try f.apply(id, at: 2_060, .down, error: "connection refused")
        #expect(down?.status == "down")
        #expect(down?.lastError == "connection refused")
        let open = try #require(try f.db.read { try Incidents.findOpen($0, monitorID: id, kind: "down") })
        #expect(open.cause.contains("connection refused"))
        #expect(try f.apply(id, at: 2_120, .up)?.status == "up")
        let events = try f.events(id)
        #expect(events.map(\.kind) == ["monitor_down", "monitor_up"])
        #expect(events.allSatisfy { $0.incidentID == open.id && !$0.suppressed })
        let closed = try #require(try f.db.read { try Incidents.find($0, id: open.id) })
        #expect(closed.status == "closed" && closed.closedAt == 2_120)
        let timeline = try f.db.read { try Incidents.timeline($0, incidentID: open.id) }.map(\.event)
        #expect(timeline.first == "opened" && timeline.last == "closed")
        #expect(try f.db.read { try CheckResults.range($0, monitorID: id, fromMs: 0, toMs: 10_000_000) }.count == 3)
    }

    @Test(arguments: TestEngine.all) func maintenanceSuppressesEventsButRecordsEverything(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        _ = try f.db.write { c in
            try MaintenanceWindows.insert(c, MaintenanceRecord(title: "deploy", monitorIDs: [id], startsAt: 2_050,
                                                               endsAt: 2_100, createdBy: nil), now: 2_000)
        }
        try f.calendar.reload(now: 2_000)
        _ = try f.apply(id, at: 2_000, .up)
        _ = try f.apply(id, at: 2_060, .down, error: "HTTP 503")
        let events = try f.events(id)
        #expect(events.map(\.kind) == ["monitor_down"])
        #expect(events.first?.suppressed == true)
        let results = try f.db.read { try CheckResults.range($0, monitorID: id, fromMs: 0, toMs: 10_000_000) }
        #expect(results.map(\.inMaintenance) == [false, true])
    }

    @Test(arguments: TestEngine.all) func pauseClosesIncidentsAndIgnoresResults(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        _ = try f.apply(id, at: 2_000, .down, error: "refused")
        let paused = try f.db.write { try f.recorder.apply(.pause(at: 2_010), monitorID: id, on: $0) }
        #expect(paused?.status == "paused" && paused?.paused == true)
        #expect(try f.db.read { try Incidents.openFor($0, monitorID: id) }.isEmpty)
        #expect(try f.apply(id, at: 2_020, .down)?.status == "paused")
        let resumed = try f.db.write { try f.recorder.apply(.resume(at: 2_030), monitorID: id, on: $0) }
        #expect(resumed?.status == "pending" && resumed?.paused == false)
    }

    @Test(arguments: TestEngine.all) func retentionRollsUpThenPrunesRawResults(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let day: Int64 = 86_400
        let now: Int64 = 100 * day + 7_200
        let old = now - 10 * day          // beyond 7 days of raw retention
        let base = old / 3600 * 3600
        for i in 0..<6 {                  // an hour with 4 up, 2 down
            _ = try f.apply(id, at: base + Int64(i) * 60, i < 4 ? .up : .down, error: i < 4 ? nil : "refused")
        }
        _ = try f.apply(id, at: now - 60, .up)
        var settings = RetentionSettings()
        settings.rawDays = 7
        try RetentionJob(database: f.db, settings: settings).run(now: now)
        let rollups = try f.db.read { try CheckResults.rollups($0, monitorID: id, resolution: 3600, from: 0, to: now) }
        #expect(rollups.count == 1)
        #expect(rollups.first?.up == 4 && rollups.first?.down == 2 && rollups.first?.bucketStart == base)
        let daily = try f.db.read { try CheckResults.rollups($0, monitorID: id, resolution: 86_400, from: 0, to: now) }
        #expect(daily.first?.up == 4 && daily.first?.down == 2)
        let raw = try f.db.read { try CheckResults.range($0, monitorID: id, fromMs: 0, toMs: now * 1000) }
        #expect(raw.map { $0.atMs / 1000 } == [now - 60]) // old raw rows gone, recent kept
        // Running again changes nothing (idempotent).
        try RetentionJob(database: f.db, settings: settings).run(now: now)
        #expect(try f.db.read { try CheckResults.rollups($0, monitorID: id, resolution: 3600, from: 0, to: now) } == rollups)
    }

    /// SPEC §10: the events feed is kept as long as raw results.
    @Test(arguments: TestEngine.all) func retentionDeletesEventsAsOldAsRawResults(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.monitor()
        let day: Int64 = 86_400
        let now: Int64 = 100 * day + 7_200
        _ = try f.apply(id, at: now - 9 * day, .up)
        _ = try f.apply(id, at: now - 9 * day + 60, .down, error: "refused")   // 9 days old: goes
        _ = try f.apply(id, at: now - 6 * day, .up)                            // 6 days old: stays
        _ = try f.apply(id, at: now - 60, .down, error: "refused")             // a minute old: stays
        #expect(try f.events(id).map(\.kind) == ["monitor_down", "monitor_up", "monitor_down"])
        var settings = RetentionSettings()
        settings.rawDays = 7
        try RetentionJob(database: f.db, settings: settings).run(now: now)
        #expect(try f.events(id).map(\.at) == [now - 6 * day, now - 60])
    }
}
