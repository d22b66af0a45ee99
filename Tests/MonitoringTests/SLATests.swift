import Core
import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SLA reports (SPEC §13) against a brute-force reading of the raw history:
/// ten days of results with outages (one still open), a maintenance window
/// for the monitor and one for every monitor, recorded through the real
/// recorder (so the incidents are the ones the hub would open), then rolled
/// up and pruned by the real retention job. The report must agree, second
/// for second, with a walk over the raw results taken before the pruning.
@Suite struct SLATests {
    static let day: Int64 = 86_400, hour: Int64 = 3600
    static let t0: Int64 = 1_800_000_000 / day * day
    static let now = t0 + 10 * day
    static let created = t0 + 5 * hour + 17

    struct History {
        var results: [(at: Int64, up: Bool)] = []
        var maintenance: [(start: Int64, end: Int64)] = []
    }

    /// Every 5 minutes from creation to now: mostly up, outages of 1 to 40
    /// checks (a small linear congruential generator, so it is the same
    /// history every run), ending in an outage that is still open.
    static func history() -> History {
        var h = History()
        var seed: UInt64 = 42
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed >> 33
        }
        var t = created, downLeft = 0
        while t < now {
            if downLeft == 0 && h.results.count > 0 && next() % 60 == 0 { downLeft = Int(next() % 40) + 1 }
            h.results.append((t, downLeft == 0))
            if downLeft > 0 { downLeft -= 1 }
            t += 300
        }
        for i in (h.results.count - 5)..<h.results.count { h.results[i].up = false }
        h.maintenance = [(t0 + 3 * day + 1_000, t0 + 3 * day + 30_000), (t0 + 8 * day + 7_200, t0 + 8 * day + 50_000)]
        return h
    }

    /// Walks the raw results one second at a time: down from a failed check
    /// until the next successful one (retries 0), the last outage until now.
    static func expected(_ h: History, from: Int64, to: Int64) -> (downtime: Int64, maintenance: Int64, uptime: Double?,
                                                                   incidents: Int, mttr: Int64?, checks: Int64) {
        var outages: [(start: Int64, end: Int64?)] = []
        for r in h.results {
            if !r.up, outages.last.map({ $0.end != nil }) ?? true { outages.append((r.at, nil)) }
            if r.up, let last = outages.last, last.end == nil { outages[outages.count - 1].end = r.at }
        }
        let start = max(from, created), end = min(to, now)
        var down: Int64 = 0, maintenance: Int64 = 0
        var i = 0
        var t = start
        while t < end {
            while i < outages.count, let e = outages[i].end, e <= t { i += 1 }
            let isDown = i < outages.count && outages[i].start <= t
            let inMaintenance = h.maintenance.contains { t >= $0.start && t < $0.end }
            if inMaintenance { maintenance += 1 } else if isDown { down += 1 }
            t += 1
        }
        let measured = max(0, end - start) - maintenance
        let touching = outages.filter { $0.start < to && ($0.end.map { $0 > from } ?? true) }
        let closed = outages.compactMap { o -> Int64? in
            guard let e = o.end, e >= from, e < to else { return nil }
            return e - o.start
        }
        let mttr = closed.isEmpty ? nil : Int64((Double(closed.reduce(0, +)) / Double(closed.count)).rounded())
        let checks = Int64(h.results.filter { $0.at >= from && $0.at < to }.count)
        return (down, maintenance, measured > 0 ? Double(measured - down) * 100 / Double(measured) : nil,
                touching.count, mttr, checks)
    }

    @Test(arguments: TestEngine.all) func figuresEqualABruteForceWalkOfTheRawResults(engine: TestEngine) throws {
        var template = Array("/tmp/pingtxt-sla-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer {
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }
        let db = try engine.open(in: dir, readers: 4)
        defer { db.close() }
        var settings = MonitoringSettings()
        settings.retention.rawDays = 2
        settings.retention.hourlyDays = 4
        let service = MonitoringService(database: db, settings: settings)
        defer { service.stop() }

        let h = Self.history()
        var config = MonitorConfig(name: "api", type: .tcp, target: "127.0.0.1:9")
        config.retries = 0
        var record = MonitorRecord(name: "api", type: "tcp", target: "127.0.0.1:9", interval: 300, timeout: 10, retries: 0)
        config.write(into: &record)
        let (id, other) = try db.write { c in
            (try Monitors.insert(c, record, now: Self.created).id,
             try Monitors.insert(c, MonitorRecord(name: "quiet", type: "tcp", target: "127.0.0.1:9", interval: 300, timeout: 10,
                                                  retries: 0), now: Self.created).id)
        }
        try db.write { c in
            _ = try MaintenanceWindows.insert(c, MaintenanceRecord(title: "deploy", monitorIDs: [id], startsAt: h.maintenance[0].start,
                                                                   endsAt: h.maintenance[0].end, createdBy: nil), now: Self.t0)
            _ = try MaintenanceWindows.insert(c, MaintenanceRecord(title: "all", monitorIDs: [], startsAt: h.maintenance[1].start,
                                                                   endsAt: h.maintenance[1].end, createdBy: nil), now: Self.t0)
        }
        let calendar = MaintenanceCalendar(database: db)
        try calendar.reload(now: Self.t0)
        let recorder = ResultRecorder(hubLocation: "hub", calendar: calendar)
        try db.write { c in
            for r in h.results {
                _ = try recorder.apply(.result(CheckResult(at: r.at, outcome: r.up ? .up : .down, latencyMs: r.up ? 20 : nil,
                                                           error: r.up ? nil : "refused")), monitorID: id, on: c)
            }
        }
        try RetentionJob(database: db, settings: settings.retention).run(now: Self.now)
        let rawLeft = try db.read { try CheckResults.range($0, monitorID: id, fromMs: 0, toMs: Self.now * 1000) }.count
        #expect(rawLeft < h.results.count / 3, "the retention job pruned the older raw results (\(rawLeft) left)")

        let ranges: [(String, Int64, Int64)] = [
            ("before creation to the future", Self.t0 - 2 * Self.day, Self.now + Self.day),
            ("daily then hourly roll-ups", Self.t0 + Self.day, Self.t0 + 8 * Self.day),
            ("hourly roll-ups then raw", Self.t0 + 9 * Self.day + Self.hour, Self.now),
            ("one maintenance day", Self.t0 + 3 * Self.day, Self.t0 + 4 * Self.day),
        ]
        for (what, from, to) in ranges {
            let want = Self.expected(h, from: from, to: to)
            let got = try service.sla(monitorID: id, from: from, to: to, now: Self.now)
            #expect(got.downtimeSeconds == want.downtime, "\(what): downtime")
            #expect(got.maintenanceSeconds == want.maintenance, "\(what): maintenance")
            #expect(got.incidents == want.incidents, "\(what): incidents")
            #expect(got.mttrSeconds == want.mttr, "\(what): mttr")
            #expect(got.checks == want.checks, "\(what): checks")
            #expect(abs((got.uptime ?? -1) - (want.uptime ?? -1)) < 1e-9, "\(what): uptime \(String(describing: got.uptime))")
            #expect(want.downtime > 0 || what == "one maintenance day", "\(what): the history has downtime there")
        }

        // The report: every monitor, by id; the quiet one was never down and
        // ran no check, but the window for every monitor still covers it.
        let report = try service.slaReport(from: Self.t0, to: Self.now, now: Self.now)
        #expect(report.map(\.monitorID) == [id, other])
        let quiet = try #require(report.last)
        #expect(quiet.downtimeSeconds == 0 && quiet.uptime == 100 && quiet.checks == 0 && quiet.incidents == 0 && quiet.mttrSeconds == nil)
        #expect(quiet.maintenanceSeconds == h.maintenance[1].end - h.maintenance[1].start)
        #expect(report.first == (try service.sla(monitorID: id, from: Self.t0, to: Self.now, now: Self.now)))
        // A range wholly before the monitor existed measures nothing.
        let before = try service.sla(monitorID: id, from: Self.t0 - 5 * Self.day, to: Self.t0, now: Self.now)
        #expect(before.uptime == nil && before.downtimeSeconds == 0 && before.checks == 0)
    }

    @Test func intervalsMergeClipAndSubtractMaintenance() {
        let f = SLACalculator.figures(monitorID: 1, name: "m", from: 100, to: 200, createdAt: 0, now: 1_000,
                                      down: [(90, 120), (110, 130), (150, nil)], maintenance: [(125, 160), (140, 145)], checks: 7)
        // Down [100,130) ∪ [150,200) = 80 s; maintenance [125,160) = 35 s, of it
        // 5 + 10 = 15 s down: downtime 65 s of 65 measured.
        #expect(f.downtimeSeconds == 65 && f.maintenanceSeconds == 35 && f.uptime == 0)
        #expect(f.incidents == 3 && f.mttrSeconds == 25 && f.checks == 7)   // (30 + 20) / 2
    }
}
