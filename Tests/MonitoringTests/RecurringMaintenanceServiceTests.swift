import Core
import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Recurring windows where the service decides (SPEC §12), on both engines:
/// the calendar (alerts, reminders, escalation ask it) follows occurrences,
/// uptime and the daily bars leave occurrences out, status pages get the
/// upcoming list.
@Suite struct RecurringMaintenanceServiceTests {
    @Test(arguments: TestEngine.all) func occurrencesDecideCalendarUptimeAndUpcoming(engine: TestEngine) throws {
        var template = Array("/tmp/pingtxt-recur-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer {
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }
        let db = try engine.open(in: dir, readers: 4)
        defer { db.close() }
        let service = MonitoringService(database: db, settings: MonitoringSettings())
        defer { service.stop() }

        let hour: Int64 = 3600, day: Int64 = 86_400
        // 1_800_000_000 / day * day is a Friday 00:00Z (2027-01-15); no DST
        // change in January, so Berlin is UTC+1.
        let friday: Int64 = 1_800_000_000 / day * day
        let now = friday + 12 * hour
        let (covered, other) = try db.write { c in
            (try Monitors.insert(c, MonitorRecord(name: "db", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 5, retries: 0),
                                 now: friday - 2 * day).id,
             try Monitors.insert(c, MonitorRecord(name: "web", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 5, retries: 0),
                                 now: friday - 2 * day).id)
        }
        try service.start()
        // Daily 12:30 Berlin (11:30Z) for 60 minutes, and 03:00 Berlin for 30.
        _ = try service.createMaintenance(MaintenanceInput(
            title: "noon", monitorIDs: [covered], startsAt: friday - day, endsAt: nil,
            recurrence: .init(cron: "30 12 * * *", timezone: "Europe/Berlin", durationMinutes: 60)), by: nil)
        _ = try service.createMaintenance(MaintenanceInput(
            title: "night", monitorIDs: [covered], startsAt: friday - day, endsAt: friday + 5 * day,
            recurrence: .init(cron: "0 3 * * *", timezone: "Europe/Berlin", durationMinutes: 30)), by: nil)

        #expect(!service.isInMaintenance(covered, at: friday + 11 * hour + 29 * 60))
        #expect(service.isInMaintenance(covered, at: friday + 11 * hour + 30 * 60))
        #expect(service.isInMaintenance(covered, at: friday + 12 * hour + 29 * 60))
        #expect(!service.isInMaintenance(covered, at: friday + 12 * hour + 30 * 60))
        #expect(service.isInMaintenance(covered, at: friday + day + 2 * hour + 10 * 60), "Saturday 03:10 Berlin")
        #expect(!service.isInMaintenance(other, at: friday + 11 * hour + 45 * 60))
        #expect(!service.isInMaintenance(covered, at: friday + 5 * day + 2 * hour + 10 * 60), "the night series has ended")

        // Uptime over [now + 1 - 24h, now + 1): yesterday's noon from
        // 12:00:01Z (29:59), today's night (30:00), today's noon from 11:30Z
        // (30:01): 90 minutes.
        try db.write { c in
            for (at, status) in [(now - 20 * hour, "up"), (friday + 2 * hour + 5 * 60, "down"), (friday + 11 * hour + 40 * 60, "down"),
                                 (friday + 10 * hour, "up")] {
                try CheckResults.insert(c, CheckResultRecord(monitorID: covered, atMs: at * 1000, location: "hub", status: status,
                                                             latencyMs: 5, statusCode: nil, error: nil, inMaintenance: false))
            }
        }
        let summary = try service.uptime(monitorID: covered, seconds: day, now: now)
        #expect(summary.maintenanceSeconds == 90 * 60)
        #expect(summary.checks == 2 && summary.uptime == 100, "both downs fell inside occurrences")
        let bars = try #require(try service.dailyUptime(monitorIDs: [covered], days: 1, now: now)[covered])
        #expect(bars.first?.up == 1 && bars.first?.down == 0 && bars.first?.maintenance == 2)

        // What a status page announces: per window, in progress or next within 7 days.
        let upcoming = try service.upcomingMaintenance(monitorIDs: [other, covered], now: now)
        #expect(upcoming.map(\.title) == ["noon", "night"])
        #expect(upcoming.first?.active == true && upcoming.first?.start == friday + 11 * hour + 30 * 60)
        #expect(upcoming.last?.start == friday + day + 2 * hour && upcoming.last?.end == friday + day + 2 * hour + 30 * 60)
        #expect(upcoming.allSatisfy { $0.recurring && $0.monitorIDs == [covered] })
        #expect(try service.upcomingMaintenance(monitorIDs: [other], now: now).isEmpty)
    }
}
