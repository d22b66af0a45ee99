import Core
import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A measurement, not an assertion of speed: runs only with SLA_BENCH=1
/// (`bench/sla.sh`). 1,000 monitors with 90 days of hourly and daily
/// roll-ups (the shape retention leaves: 2.16 million hours in 90,000 day rows), five closed down incidents
/// each and a maintenance window for all; then the 90-day SLA report of every
/// monitor, and one monitor's, timed on each engine.
@Suite struct SLABench {
    @Test(.enabled(if: getenv("SLA_BENCH") != nil), arguments: TestEngine.all)
    func ninetyDaysForAThousandMonitors(engine: TestEngine) throws {
        let monitors = Int(getenv("SLA_BENCH_MONITORS").map { String(cString: $0) } ?? "") ?? 1000
        var template = Array("/tmp/pingtxt-slabench-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer {
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }
        let db = try engine.open(in: dir, readers: 2)
        defer { db.close() }
        let service = MonitoringService(database: db, settings: MonitoringSettings())
        defer { service.stop() }
        let day: Int64 = 86_400, hour: Int64 = 3600
        let now = Time.now() / day * day   // midnight: daily rows are UTC days
        let from = now - 90 * day
        let seedStart = Time.monotonicNanos()
        try db.write { c in
            for i in 0..<monitors {
                let id = try Monitors.insert(c, MonitorRecord(name: "m\(i)", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 5,
                                                              retries: 0), now: from - day).id
                // Hourly roll-ups: 60 checks an hour, in their days' rows.
                let hours = stride(from: from, to: now - hour, by: Int(hour)).map { t in
                    RollupRecord(monitorID: id, resolution: hour, bucketStart: t, up: 59, degraded: 0, down: 1, inMaintenance: 0,
                                 latencySum: 1200, latencyCount: 59, histogram: "9:59")
                }
                try CheckResults.upsertRollups(c, hours)
                for k in 0..<5 {
                    let at = from + Int64(k) * 17 * day + Int64(i) * 7
                    _ = try Incidents.open(c, monitorID: id, kind: "down", cause: "bench", locations: ["hub"], at: at)
                    _ = try Incidents.close(c, monitorID: id, kind: "down", at: at + 600)
                }
            }
            // And the daily rows the job makes of each closed day.
            try c.execute("""
                WITH RECURSIVE d(t) AS (SELECT \(from) UNION ALL SELECT t + 86400 FROM d WHERE t + 86400 < \((now - hour) / day * day))
                INSERT INTO result_rollups (monitor_id, resolution, bucket_start, up, degraded, down, in_maintenance,
                                            latency_sum, latency_count, histogram)
                SELECT m.id, 86400, d.t, 1416, 0, 24, 0, 28800, 1416, '' FROM monitors m, d
                """)
            try Meta.set(c, "rollup_horizon", String(now - hour))
            _ = try MaintenanceWindows.insert(c, MaintenanceRecord(title: "all", monitorIDs: [], startsAt: from + 3 * day,
                                                                   endsAt: from + 3 * day + 7200, createdBy: nil), now: from)
        }
        let seeded = Double(Time.monotonicNanos() - seedStart) / 1e9
        var times: [Double] = []
        var report: [SLAFigures] = []
        for _ in 0..<3 {
            let t = Time.monotonicNanos()
            report = try service.slaReport(from: from, to: now, now: now)
            times.append(Double(Time.monotonicNanos() - t) / 1e6)
        }
        #expect(report.count == monitors)
        #expect(report.allSatisfy { $0.incidents == 5 && $0.checks == Int64(90 * 24 - 1) * 60 })
        var one: [Double] = []
        for i in 0..<20 {
            let t = Time.monotonicNanos()
            _ = try service.sla(monitorID: report[i * monitors / 20].monitorID, from: from, to: now, now: now)
            one.append(Double(Time.monotonicNanos() - t) / 1e6)
        }
        print("BENCH sla engine=\(engine) monitors=\(monitors) days=90 seed_s=\(Int(seeded.rounded())) "
            + "report_ms=\(times.map { String(Int($0.rounded())) }.joined(separator: "/")) "
            + "one_monitor_ms_median=\((one.sorted()[one.count / 2] * 100).rounded() / 100)")
    }
}
