import Core
import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `ResultRecorder.applyMany` must leave the database exactly as `apply`
/// called once per result does: the same monitor rows, the same result rows
/// in the same order, the same incidents, timelines and events. Two
/// databases get the same monitors and the same random results, one
/// result at a time and in random groups; then every table that recording
/// writes is compared row by row.
@Suite struct ResultGroupTests {
    final class Side {
        let db: Database
        let calendar: MaintenanceCalendar
        let recorder: ResultRecorder
        init(_ engine: TestEngine, dir: String, name: String) throws {
            db = try engine.open(in: dir, name: name, readers: 2)
            calendar = MaintenanceCalendar(database: db)
            recorder = ResultRecorder(hubLocation: "hub", calendar: calendar)
        }

        /// Every monitor of `shapes`, ids 1…n in order; returns their configurations.
        func monitors(_ shapes: [(retries: Int64, degraded: Int64?, paused: Bool)]) throws -> [Int64: MonitorConfig] {
            var out: [Int64: MonitorConfig] = [:]
            for (i, shape) in shapes.enumerated() {
                var config = MonitorConfig(name: "m\(i)", type: .tcp, target: "127.0.0.1:9")
                config.retries = shape.retries
                config.degradedAfterMs = shape.degraded
                config.paused = shape.paused
                var record = MonitorRecord(name: "m\(i)", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10,
                                           retries: shape.retries)
                config.write(into: &record)
                let id = try db.write { try Monitors.insert($0, record, now: 1_000).id }
                out[id] = config
            }
            return out
        }

        /// Everything recording writes, in a comparable form.
        func snapshot() throws -> [String: [[SQLValue]]] {
            try db.read { c in
                var out: [String: [[SQLValue]]] = [:]
                let tables = [
                    "monitors": """
                        SELECT id, status, status_since, state, paused, last_at, last_location, last_status, last_latency_ms,
                            last_status_code, last_error, cert_not_after FROM monitors ORDER BY id
                        """,
                    "results": """
                        SELECT id, monitor_id, at_ms, location, status, latency_ms, status_code, error, in_maintenance
                        FROM check_results ORDER BY id
                        """,
                    "incidents": """
                        SELECT id, monitor_id, kind, status, cause, opened_at, closed_at, held_until, suppressed_by
                        FROM incidents ORDER BY id
                        """,
                    "timeline": "SELECT incident_id, at, event, detail FROM incident_timeline ORDER BY id",
                    "events": "SELECT id, kind, monitor_id, incident_id, at, cause, suppressed FROM events ORDER BY id",
                ]
                for (name, sql) in tables { out[name] = try c.query(sql).map(\.values) }
                return out
            }
        }
    }

    @Test(arguments: TestEngine.all) func groupsWriteWhatOneByOneWrites(engine: TestEngine) throws {
        var template = Array("/tmp/pingtxt-groups-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer {
            for f in ["a.db", "a.db-wal", "a.db-shm", "b.db", "b.db-wal", "b.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }
        let one = try Side(engine, dir: dir, name: "a.db")
        let grouped = try Side(engine, dir: dir, name: "b.db")
        defer { one.db.close(); grouped.db.close() }

        // Plain, with retries, with a latency threshold, a parent and its
        // child, a paused one, and one deleted before its results arrive.
        let shapes: [(retries: Int64, degraded: Int64?, paused: Bool)] = [
            (0, nil, false), (2, nil, false), (0, 100, false), (1, nil, false), (0, nil, false), (0, nil, true),
            (0, nil, false),
        ]
        var configs: [Int64: MonitorConfig] = [:]
        for side in [one, grouped] {
            configs = try side.monitors(shapes)
            let ids = configs.keys.sorted()
            try side.db.write { c in
                try Dependencies.replace(c, monitorID: ids[4], parents: [ids[3]])
                _ = try MaintenanceWindows.insert(c, MaintenanceRecord(title: "deploy", monitorIDs: [ids[0]], startsAt: 5_000,
                                                                       endsAt: 6_000, createdBy: nil), now: 1_000)
                _ = try Monitors.delete(c, id: ids[6])
            }
            try side.calendar.reload(now: 1_000)
        }
        let ids = configs.keys.sorted()

        var random = SplitMix(seed: 20_261_205)   // JSONPathTests.swift: the same run every time
        var clock: [Int64: Int64] = Dictionary(uniqueKeysWithValues: ids.map { ($0, 2_000) })
        var inputs: [ResultRecorder.Recorded] = []
        for _ in 0..<600 {
            let id = ids[below(&random, ids.count)]
            // Mostly forward in time; now and then a late upload.
            let late = below(&random, 25) == 0
            clock[id]! += late ? 0 : Int64(30 + below(&random, 60))
            let at = late ? clock[id]! - 200 : clock[id]!
            let roll = below(&random, 100)
            let result = roll < 78 ? CheckResult(at: at, outcome: .up, latencyMs: 20 + below(&random, 30), statusCode: 200)
                : roll < 85 ? CheckResult(at: at, outcome: .up, latencyMs: 300, statusCode: 200)
                : CheckResult(at: at, outcome: .down, latencyMs: nil, error: below(&random, 2) == 0 ? "refused" : "HTTP \"503\" \\ {x,y}")
            inputs.append(ResultRecorder.Recorded(monitorID: id, result: result, config: configs[id]!))
        }

        for input in inputs {
            try one.db.write { c in
                _ = try one.recorder.apply(.result(input.result), monitorID: input.monitorID, on: c, config: input.config,
                                           returning: false)
            }
        }
        var start = 0
        var sizes: [Int] = []
        while start < inputs.count {
            let size = min(inputs.count - start, 1 + below(&random, 60))
            let group = Array(inputs[start..<(start + size)])
            try grouped.db.write { c in try grouped.recorder.applyMany(group, on: c) }
            sizes.append(size)
            start += size
        }

        let a = try one.snapshot()
        let b = try grouped.snapshot()
        for table in a.keys.sorted() {
            let (x, y) = (a[table] ?? [], b[table] ?? [])
            let first = x.indices.first { $0 < y.count && x[$0] != y[$0] }
            #expect(x.count == y.count && first == nil,
                    "\(table): \(x.count) vs \(y.count) rows, first difference at \(first.map(String.init) ?? "-"): \(first.map { "\(x[$0]) vs \(y[$0])" } ?? "")")
        }
        // The run exercised what it means to: incidents opened and closed,
        // late results, groups with a monitor twice.
        #expect((a["incidents"]?.count ?? 0) >= 3)
        #expect((a["events"]?.count ?? 0) >= 4)
        #expect(sizes.contains { $0 > 20 })
        #expect(a["results"]?.count == inputs.filter { $0.monitorID != ids[6] }.count)
    }

    private func below(_ random: inout SplitMix, _ n: Int) -> Int { Int(random.next() % UInt64(n)) }
}
