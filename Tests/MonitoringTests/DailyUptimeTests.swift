import Core
import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `MonitoringService.dailyUptime` (status pages' 90 bars): daily roll-ups
/// before the roll-up horizon's day, hourly roll-ups up to the horizon, raw
/// results after it, each check counted once, maintenance excluded.
@Suite struct DailyUptimeTests {
    @Test(arguments: TestEngine.all) func combinesDailyHourlyAndRawHistoryWithoutCountingTwice(engine: TestEngine) throws {
        var template = Array("/tmp/pingtxt-daily-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer {
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }
        let db = try engine.open(in: dir, readers: 4)
        defer { db.close() }
        let service = MonitoringService(database: db, settings: MonitoringSettings())
        defer { service.stop() }

        let day: Int64 = 86_400, hour: Int64 = 3600
        let today: Int64 = 1_800_000_000 / day * day
        let now = today + 10 * hour
        let id = try db.write { c in
            try Monitors.insert(c, MonitorRecord(name: "api", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 5, retries: 0),
                                now: today - 5 * day).id
        }
        func rollup(_ resolution: Int64, _ start: Int64, up: Int64 = 0, down: Int64 = 0, maintenance: Int64 = 0) -> RollupRecord {
            RollupRecord(monitorID: id, resolution: resolution, bucketStart: start, up: up, degraded: 0, down: down,
                         inMaintenance: maintenance, latencySum: 0, latencyCount: 0, histogram: "")
        }
        func result(_ at: Int64, _ status: String, maintenance: Bool = false) -> CheckResultRecord {
            CheckResultRecord(monitorID: id, atMs: at * 1000, location: "hub", status: status, latencyMs: 10, statusCode: nil,
                              error: nil, inMaintenance: maintenance)
        }
        try db.write { c in
            try Meta.set(c, "rollup_horizon", String(today + 8 * hour))
            try CheckResults.upsertRollup(c, rollup(day, today - 2 * day, up: 90, down: 10))
            try CheckResults.upsertRollup(c, rollup(day, today - day, maintenance: 5))
            // Already inside yesterday's daily row: must not count again.
            try CheckResults.upsertRollup(c, rollup(hour, today - day + 5 * hour, up: 50))
            try CheckResults.upsertRollup(c, rollup(hour, today + 3 * hour, up: 10))
            // Before the horizon: inside the hourly rows, not read raw.
            try CheckResults.insert(c, result(today + 7 * hour, "down"))
            try CheckResults.insert(c, result(today + 9 * hour, "down"))
            try CheckResults.insert(c, result(today + 9 * hour + 1, "up", maintenance: true))
            // In a window created after the fact: excluded too.
            try CheckResults.insert(c, result(today + 9 * hour + 10, "up"))
            _ = try MaintenanceWindows.insert(c, MaintenanceRecord(title: "late", monitorIDs: [id], startsAt: today + 9 * hour + 5,
                                                                   endsAt: today + 9 * hour + 60, createdBy: nil), now: now)
        }

        let days = try #require(try service.dailyUptime(monitorIDs: [id], days: 4, now: now)[id])
        #expect(days.map(\.dayStart) == [today - 3 * day, today - 2 * day, today - day, today])
        #expect(days[0].checks == 0 && days[0].maintenance == 0 && days[0].uptime == nil, "no data")
        #expect(days[1].uptime == 90 && days[1].checks == 100)
        #expect(days[2].checks == 0 && days[2].maintenance == 5 && days[2].uptime == nil, "only maintenance")
        #expect(days[3].up == 10 && days[3].down == 1 && days[3].maintenance == 2)
        #expect(abs((days[3].uptime ?? 0) - 1000.0 / 11) < 1e-9)

        // Asked again: the closed days come from the cache, the same answer.
        #expect(try service.dailyUptime(monitorIDs: [id], days: 4, now: now)[id] == days)
        // The next day: today is closed into a daily row, the span moves and
        // the closed days are read again, today's row among them.
        try db.write { c in
            try Meta.set(c, "rollup_horizon", String(today + day + hour))
            try CheckResults.upsertRollup(c, rollup(day, today, up: 7, down: 3))
        }
        let next = try #require(try service.dailyUptime(monitorIDs: [id], days: 4, now: now + day)[id])
        #expect(next.map(\.dayStart) == [today - 2 * day, today - day, today, today + day])
        #expect(next[0].uptime == 90 && next[1].maintenance == 5 && next[2].up == 7 && next[2].down == 3)
        #expect(next[3].checks == 0)
    }
}
