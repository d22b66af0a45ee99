import Testing
import Core
@testable import Store
import TestSupport

/// Migration 0032 on both engines: hourly rows written in the old form
/// (one `result_rollups` row per hour) come back, after the migration,
/// as the same records from `rollup_days`; daily rows stay where they
/// were; what the hub never wrote (off the hour, a negative count, a
/// histogram not in `bucket:count` form) is repaired, not refused.
@Suite struct RollupDaysMigrationTests {
    static let day: Int64 = 86_400, hour: Int64 = 3600
    static let d0: Int64 = 20_100 * day

    static func old(_ c: Connection, _ r: RollupRecord) throws(StoreError) {
        try c.execute("""
            INSERT INTO result_rollups (monitor_id, resolution, bucket_start, up, degraded, down, in_maintenance, latency_sum,
                latency_count, histogram) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(r.monitorID), .integer(r.resolution), .integer(r.bucketStart), .integer(r.up), .integer(r.degraded),
                  .integer(r.down), .integer(r.inMaintenance), .integer(r.latencySum), .integer(r.latencyCount), .text(r.histogram)])
    }

    static func record(_ m: Int64, _ resolution: Int64, _ start: Int64, _ i: Int64, histogram: String? = nil) -> RollupRecord {
        RollupRecord(monitorID: m, resolution: resolution, bucketStart: start, up: 50 + i, degraded: i % 2, down: i % 3,
                     inMaintenance: i % 4 == 0 ? 60 : 0, latencySum: 900 * i, latencyCount: 50 + i,
                     histogram: histogram ?? "\(i % 9):\(20 + i),\(10 + i % 30):30")
    }

    @Test(arguments: TestEngine.all) func hourlyRowsMoveIntoDays(engine: TestEngine) throws {
        let dir = TempDir()
        let url = try DatabaseURL(try engine.url(in: dir.path))
        let before = Migrations.all.filter { $0.name != Schema0032.migration.name }
        let old = try Database(url: url, migrations: before)
        var hourly: [RollupRecord] = [], daily: [RollupRecord] = []
        let (a, b) = try old.write { c in
            let a = try Monitors.insert(c, MonitorRecord(name: "a", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 5,
                                                         retries: 0), now: 1).id
            let b = try Monitors.insert(c, MonitorRecord(name: "b", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 5,
                                                         retries: 0), now: 1).id
            return (a, b)
        }
        for h in stride(from: Int64(0), to: 3 * 24, by: 5) {
            hourly.append(Self.record(a, 3600, Self.d0 + h * Self.hour, h, histogram: h == 10 ? "" : nil))
        }
        hourly.append(Self.record(b, 3600, Self.d0 + 2 * Self.day + 23 * Self.hour, 7))
        for d in Int64(0)..<2 { daily.append(Self.record(a, 86_400, Self.d0 + d * Self.day, 100 + d, histogram: "[1,2]")) }
        try old.write { c in
            for r in hourly + daily { try Self.old(c, r) }
            // The hub never wrote these.
            var offTheHour = Self.record(b, 3600, Self.d0 + 5 * Self.hour + 120, 1)
            offTheHour.down = -2
            try Self.old(c, offTheHour)
            try Self.old(c, Self.record(b, 3600, Self.d0 + 7 * Self.hour, 2, histogram: "[]"))
        }
        old.close()

        let db = try Database(url: url)
        defer { db.close() }
        var repaired = Self.record(b, 3600, Self.d0 + 5 * Self.hour, 1)
        repaired.down = 0
        let repairedHistogram = Self.record(b, 3600, Self.d0 + 7 * Self.hour, 2, histogram: "")
        try db.read { (c: Connection) throws in
            #expect(try CheckResults.rollups(c, monitorID: a, resolution: 3600, from: 0, to: Int64.max) == hourly.filter { $0.monitorID == a })
            #expect(try CheckResults.rollups(c, monitorID: b, resolution: 3600, from: 0, to: Int64.max)
                == [repaired, repairedHistogram] + hourly.filter { $0.monitorID == b })
            #expect(try CheckResults.rollups(c, monitorID: a, resolution: 86_400, from: 0, to: Int64.max) == daily)
            // Only daily rows are left in the old table; a day row per monitor and day.
            #expect(try c.scalar("SELECT count(*) FROM result_rollups WHERE resolution = 3600") == .integer(0))
            #expect(try StorageSize.rowCount(c, table: "result_rollups") == 2)
            #expect(try StorageSize.rowCount(c, table: "rollup_days") == 3 + 2)
        }
        // The moved days take new hours like any other.
        let next = Self.record(a, 3600, Self.d0 + 2 * Self.day + 23 * Self.hour, 99)
        try db.write { c in try CheckResults.upsertRollup(c, next) }
        #expect(try db.read { (c: Connection) throws in
            try CheckResults.rollups(c, monitorID: a, resolution: 3600, from: Self.d0 + 2 * Self.day, to: Int64.max)
        } == hourly.filter { $0.monitorID == a && $0.bucketStart >= Self.d0 + 2 * Self.day } + [next])
    }
}
