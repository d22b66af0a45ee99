import Core
import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Thinning of rolled-up raw hours (docs/storage.md): roll-ups, uptime and
/// daily bars are those of the full data; the kept rows are exactly the
/// non-up results, the status changes and the first of each slice; a second
/// pass deletes nothing; hours not rolled up are left whole.
@Suite struct RetentionThinningTests {
    static let day: Int64 = 86_400
    /// Three rolled-up hours crossing a midnight (so a daily roll-up is made
    /// too), then an hour the pass must not roll up yet.
    static let h0: Int64 = 100 * day - 2 * 3600
    static let now: Int64 = h0 + 4 * 3600 + 600

    final class Fixture {
        let dir: String
        let db: Database
        let id: Int64

        init(_ engine: TestEngine) throws {
            var template = Array("/tmp/pingtxt-thintest-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try engine.open(in: dir, readers: 2)
            id = try db.write { c in
                try Monitors.insert(c, MonitorRecord(name: "api", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10,
                                                     retries: 0), now: RetentionThinningTests.h0 - 10)
            }.id
            try db.write { c in try CheckResults.insertMany(c, RetentionThinningTests.results(id)) }
        }

        deinit {
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }

        func run(sampleMinutes: Int64, now: Int64 = RetentionThinningTests.now) throws {
            var settings = RetentionSettings()
            settings.rawSampleMinutes = sampleMinutes
            try RetentionJob(database: db, settings: settings).run(now: now)
        }

        func raw() throws -> [CheckResultRecord] {
            try db.read { try CheckResults.range($0, monitorID: id, fromMs: 0, toMs: Int64.max) }
        }

        func rollups() throws -> [RollupRecord] {
            try db.read { c in
                try CheckResults.rollups(c, monitorID: id, resolution: 3600, from: 0, to: Int64.max)
                    + CheckResults.rollups(c, monitorID: id, resolution: 86_400, from: 0, to: Int64.max)
            }
        }
    }

    /// Four hours at 60 s from two locations ("eu" 30 s after "hub"):
    /// outages that cross slice and hour edges, lone degraded results,
    /// one maintenance stretch, latencies that vary.
    static func results(_ id: Int64) -> [CheckResultRecord] {
        var out: [CheckResultRecord] = []
        for k in 0..<240 {
            for (location, offset) in [("hub", Int64(0)), ("eu", Int64(30))] {
                let down = location == "hub" ? (55..<63).contains(k) || (118..<121).contains(k) : (100..<103).contains(k)
                let status = down ? "down" : (k % 37 == 5 ? "degraded" : "up")
                out.append(CheckResultRecord(monitorID: id, atMs: (h0 + Int64(k) * 60 + offset) * 1000 + 7, location: location,
                                             status: status, latencyMs: down ? nil : Int64(20 + (k * 7) % 130),
                                             statusCode: nil, error: down ? "connection refused" : nil,
                                             inMaintenance: (150..<160).contains(k)))
            }
        }
        return out
    }

    /// The rule, spelled out set by set: for each location, the non-up
    /// results, the results whose status differs from the one before, and
    /// the first result of each 10-minute slice of each hour.
    static func expectedKept(_ all: [CheckResultRecord], minutes: Int64, rolledUpBefore: Int64) -> Set<Int64> {
        var keep = Set<Int64>()
        for location in Set(all.map(\.location)) {
            let rows = all.filter { $0.location == location }.sorted { ($0.atMs, $0.id) < ($1.atMs, $1.id) }
            for r in rows where r.status != "up" || r.atMs >= rolledUpBefore * 1000 { keep.insert(r.id) }
            for (a, b) in zip(rows, rows.dropFirst()) where a.status != b.status { keep.insert(b.id) }
            let bySlice = Dictionary(grouping: rows) { r in
                let hour = r.atMs / 3_600_000
                return hour * 1000 + (r.atMs - hour * 3_600_000) / (minutes * 60_000)
            }
            for group in bySlice.values { keep.insert(group.min { $0.atMs < $1.atMs }!.id) }
        }
        return keep
    }

    @Test(arguments: TestEngine.all) func rollupsUptimeAndDailyBarsEqualThoseOfTheFullData(engine: TestEngine) throws {
        let full = try Fixture(engine)
        let thin = try Fixture(engine)
        try full.run(sampleMinutes: 0)
        try thin.run(sampleMinutes: 10)
        #expect(try full.raw().count == 480)
        #expect(try thin.raw().count < 200)
        let rollups = try full.rollups()
        #expect(rollups.count == 4) // three hours and the day that closed
        #expect(try thin.rollups() == rollups)
        let fullService = MonitoringService(database: full.db, settings: MonitoringSettings())
        let thinService = MonitoringService(database: thin.db, settings: MonitoringSettings())
        for seconds: Int64 in [6 * 3600, 86_400, 7 * 86_400] {
            let a = try fullService.uptime(monitorID: full.id, seconds: seconds, now: Self.now)
            #expect(try thinService.uptime(monitorID: thin.id, seconds: seconds, now: Self.now) == a)
        }
        let bars = try fullService.dailyUptime(monitorIDs: [full.id], days: 3, now: Self.now)[full.id]
        #expect(try thinService.dailyUptime(monitorIDs: [thin.id], days: 3, now: Self.now)[thin.id] == bars)
    }

    @Test(arguments: TestEngine.all) func keptRowsAreTheNonUpTheChangesAndTheSamples(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let all = try f.raw()
        try f.run(sampleMinutes: 10)
        let kept = try f.raw()
        let target = (Self.now - 3600) / 3600 * 3600
        #expect(Set(kept.map(\.id)) == Self.expectedKept(all, minutes: 10, rolledUpBefore: target))
        // Kept rows are untouched, whole rows.
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
        #expect(kept.allSatisfy { byID[$0.id] == $0 })
        // Every failure is still there with its error.
        #expect(kept.filter { $0.status == "down" }.count == all.filter { $0.status == "down" }.count)
    }

    @Test(arguments: TestEngine.all) func hoursNotRolledUpAreNeverThinned(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let target = (Self.now - 3600) / 3600 * 3600
        let recent = try f.raw().filter { $0.atMs >= target * 1000 }
        #expect(recent.count == 120)
        try f.run(sampleMinutes: 10)
        #expect(try f.raw().filter { $0.atMs >= target * 1000 } == recent)
        // A pass an hour later rolls that hour up and thins it like the others.
        try f.run(sampleMinutes: 10, now: Self.now + 3600)
        let later = try f.raw().filter { $0.atMs >= target * 1000 }
        #expect(later.count < recent.count)
        #expect(Set(later.map(\.id)) == Self.expectedKept(recent, minutes: 10, rolledUpBefore: target + 3600))
    }

    @Test(arguments: TestEngine.all) func aSecondPassIsIdempotent(engine: TestEngine) throws {
        let f = try Fixture(engine)
        try f.run(sampleMinutes: 10)
        let raw = try f.raw()
        let rollups = try f.rollups()
        // Forget how far thinning got: the same hours thinned again lose nothing.
        try f.db.write { c in try Meta.set(c, "thin_horizon", "0") }
        try f.run(sampleMinutes: 10)
        #expect(try f.raw() == raw)
        #expect(try f.rollups() == rollups)
    }

    @Test func thinningOffKeepsEverythingAndSlicesRestartEachHour() {
        let rows = (0..<120).map { k in
            ResultStatusRow(id: Int64(k + 1), atMs: (7_200 + Int64(k) * 60) * 1000, location: "hub", status: "up")
        }
        #expect(RawThinning.deletable(rows, hourStart: 7_200, sampleMinutes: 0).isEmpty)
        // One hour of ups with 60-minute slices: only the first stays.
        let hour = Array(rows.prefix(60))
        #expect(RawThinning.deletable(hour, hourStart: 7_200, sampleMinutes: 60) == hour.dropFirst().map(\.id))
        // 7-minute slices: kept at minutes 0, 7, …, 56 of the hour (9 of 60).
        #expect(RawThinning.deletable(hour, hourStart: 7_200, sampleMinutes: 7).count == 60 - 9)
    }
}
