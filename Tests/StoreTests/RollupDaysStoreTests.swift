import Testing
import CSQLite
import Core
@testable import Store
import TestSupport

/// Hourly roll-ups stored a day to a row (`rollup_days`, `RollupDays`) on
/// both engines, through the interface callers use (`CheckResults`,
/// `BatchReads`, `Reports`): the same per-hour records come back for any
/// range, an hour is replaced in place, pruning goes by whole days, rows
/// go with their monitor, and a damaged row is an error, not a crash.
@Suite struct RollupDaysStoreTests {
    static let day: Int64 = 86_400, hour: Int64 = 3600
    static let d0: Int64 = 20_000 * day

    static func monitor(_ c: Connection, _ name: String) throws(StoreError) -> Int64 {
        try Monitors.insert(c, MonitorRecord(name: name, type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 5, retries: 0),
                            now: 1).id
    }

    static func rollup(_ monitorID: Int64, _ start: Int64, up: Int64 = 60, seed: Int64 = 0) -> RollupRecord {
        RollupRecord(monitorID: monitorID, resolution: hour, bucketStart: start, up: up, degraded: seed % 3, down: seed % 2,
                     inMaintenance: seed % 5 == 0 ? 4 : 0, latencySum: 1_000 + seed, latencyCount: 60,
                     histogram: "\(seed % 7):10,\(9 + seed % 20):50")
    }

    static func dayRows(_ c: Connection) throws(StoreError) -> Int64 { try StorageSize.rowCount(c, table: "rollup_days") }

    @Test(arguments: TestEngine.all) func hoursShareTheirDayRowAndAnHourIsReplaced(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        let m = try db.write { c in try Self.monitor(c, "a") }
        // One at a time, out of order, as separate transactions.
        for h: Int64 in [7, 0, 3, 23] {
            try db.write { c in try CheckResults.upsertRollup(c, Self.rollup(m, Self.d0 + h * Self.hour, seed: h)) }
        }
        let want = [0, 3, 7, 23].map { h in Self.rollup(m, Self.d0 + Int64(h) * Self.hour, seed: Int64(h)) }
        try db.read { (c: Connection) throws in
            #expect(try Self.dayRows(c) == 1)
            #expect(try CheckResults.rollups(c, monitorID: m, resolution: 3600, from: Self.d0, to: Self.d0 + Self.day) == want)
        }
        // The hour again, with other numbers: replaced, not added.
        let again = Self.rollup(m, Self.d0 + 3 * Self.hour, up: 1, seed: 11)
        try db.write { c in try CheckResults.upsertRollup(c, again) }
        // Several days at once; the last of two records of one hour wins.
        try db.write { c in
            try CheckResults.upsertRollups(c, [Self.rollup(m, Self.d0 + Self.day, seed: 1), Self.rollup(m, Self.d0 + 4 * Self.hour, seed: 4),
                                               Self.rollup(m, Self.d0 + Self.day, up: 2, seed: 2),
                                               RollupRecord(monitorID: m, resolution: 86_400, bucketStart: Self.d0, up: 5, degraded: 0,
                                                            down: 0, inMaintenance: 0, latencySum: 0, latencyCount: 0, histogram: "")])
        }
        try db.read { (c: Connection) throws in
            #expect(try Self.dayRows(c) == 2)
            let hours = try CheckResults.rollups(c, monitorID: m, resolution: 3600, from: 0, to: Int64.max)
            #expect(hours == [want[0], again, Self.rollup(m, Self.d0 + 4 * Self.hour, seed: 4), want[2], want[3],
                              Self.rollup(m, Self.d0 + Self.day, up: 2, seed: 2)])
            // The daily one went to result_rollups, as before.
            #expect(try CheckResults.rollups(c, monitorID: m, resolution: 86_400, from: 0, to: Int64.max).map(\.up) == [5])
        }
        // An hour must start on a whole hour.
        #expect(throws: StoreError.self) {
            try db.write { c in try CheckResults.upsertRollup(c, Self.rollup(m, Self.d0 + 90)) }
        }
    }

    /// Two monitors, hours over four days with gaps: every read equals the
    /// stored records filtered by `[from, to)`, whatever the bounds.
    @Test(arguments: TestEngine.all) func everyRangeReadsTheHoursStartingInIt(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        let (a, b) = try db.write { c in (try Self.monitor(c, "a"), try Self.monitor(c, "b")) }
        var stored: [RollupRecord] = []
        for (i, m) in [a, b].enumerated() {
            for h in stride(from: Int64(5 + i), to: 4 * 24 - 3, by: 2 + i) where h % 24 < 20 || h >= 72 {
                stored.append(Self.rollup(m, Self.d0 + h * Self.hour, seed: h))
            }
        }
        try db.write { c in
            for r in stored { try CheckResults.upsertRollup(c, r) }
        }
        let bounds: [Int64] = [Int64.min, 0, Self.d0 - 1, Self.d0, Self.d0 + 5 * Self.hour, Self.d0 + 5 * Self.hour + 1,
                               Self.d0 + 6 * Self.hour - 1, Self.d0 + Self.day - Self.hour, Self.d0 + Self.day, Self.d0 + 30 * Self.hour,
                               Self.d0 + 2 * Self.day + 1800, Self.d0 + 3 * Self.day, Self.d0 + 4 * Self.day - 1, Self.d0 + 5 * Self.day,
                               Int64.max]
        try db.read { (c: Connection) throws in
            for from in bounds {
                for to in bounds {
                    let want = stored.filter { $0.bucketStart >= from && $0.bucketStart < to }
                    for m in [a, b] {
                        #expect(try CheckResults.rollups(c, monitorID: m, resolution: 3600, from: from, to: to)
                            == want.filter { $0.monitorID == m }, "monitor \(m) [\(from), \(to))")
                    }
                    let many = try BatchReads.rollups(c, monitorIDs: [b, a, b, 999], resolution: 3600, from: from, to: to)
                    #expect(many[a] ?? [] == want.filter { $0.monitorID == a } && many[b] ?? [] == want.filter { $0.monitorID == b }
                            && many[999] == nil, "batch [\(from), \(to))")
                    #expect(try CheckResults.rollupsAll(c, resolution: 3600, from: from, to: to) == want, "all [\(from), \(to))")
                }
            }
        }
    }

    /// SLA check counts add up hours of the head and tail ranges from the
    /// day rows, for one monitor and for every monitor.
    @Test(arguments: TestEngine.all) func reportCountsAddTheHoursOfTheirRanges(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        let ids = try db.write { c in try (0..<3).map { i in try Self.monitor(c, "m\(i)") } }
        try db.write { c in
            for (i, m) in ids.enumerated() where i < 2 {
                try CheckResults.upsertRollups(c, (0..<72).map { h in Self.rollup(m, Self.d0 + Int64(h) * Self.hour, up: Int64(i + 1)) })
            }
        }
        // Head: the last 5 hours of day 0; tail: the first 7 of day 2.
        let layers = Reports.Layers(daily: (Self.d0 + Self.day)..<(Self.d0 + Self.day), hourlyHead: (Self.d0 + 19 * Self.hour)..<(Self.d0 + Self.day),
                                    hourlyTail: (Self.d0 + 2 * Self.day)..<(Self.d0 + 2 * Self.day + 7 * Self.hour), rawMs: 0..<0)
        try db.read { (c: Connection) throws in
            let all = try Reports.checkCounts(c, monitorID: nil, layers: layers)
            // up + degraded + down + in_maintenance of seed 0: up, 0, 0, 4.
            let want: [Int64] = [12 * (1 + 4), 12 * (2 + 4), 0]
            #expect(all.map(\.checks) == want)
            #expect(try Reports.checkCounts(c, monitorID: ids[1], layers: layers).map(\.checks) == [want[1]])
        }
    }

    @Test(arguments: TestEngine.all) func pruningDeletesWholeDaysOnly(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        let (a, b) = try db.write { c in (try Self.monitor(c, "a"), try Self.monitor(c, "b")) }
        try db.write { c in
            for m in [a, b] {
                try CheckResults.upsertRollups(c, (0..<(3 * 24)).filter { $0 % 24 < 10 }.map { Self.rollup(m, Self.d0 + Int64($0) * Self.hour) })
            }
        }
        // A cutoff inside day 1: day 0 goes, day 1 stays whole (its hours
        // before the cutoff too: up to a day more is kept).
        let gone = try db.write { c in
            try CheckResults.deleteRollupsBefore(c, monitorID: a, resolution: 3600, before: Self.d0 + Self.day + 5 * Self.hour)
        }
        #expect(gone == 10)
        try db.read { (c: Connection) throws in
            #expect(try CheckResults.rollups(c, monitorID: a, resolution: 3600, from: 0, to: Int64.max).map(\.bucketStart)
                == (0..<10).map { Self.d0 + Self.day + Int64($0) * Self.hour } + (0..<10).map { Self.d0 + 2 * Self.day + Int64($0) * Self.hour })
            #expect(try CheckResults.rollups(c, monitorID: b, resolution: 3600, from: 0, to: Int64.max).count == 30)
        }
        // At a midnight exactly, the day before it goes; every monitor at once.
        #expect(try db.write { c in try CheckResults.deleteRollupsBefore(c, resolution: 3600, before: Self.d0 + 2 * Self.day) } == 10 + 20)
        #expect(try db.read { c in try Self.dayRows(c) } == 2)
        #expect(try db.write { c in try CheckResults.deleteRollupsBefore(c, resolution: 3600, before: Self.d0 + 2 * Self.day) } == 0)
    }

    @Test(arguments: TestEngine.all) func aMonitorsDaysGoWithIt(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        let (a, b) = try db.write { c in (try Self.monitor(c, "a"), try Self.monitor(c, "b")) }
        try db.write { c in
            for m in [a, b] { try CheckResults.upsertRollups(c, [Self.rollup(m, Self.d0), Self.rollup(m, Self.d0 + Self.day)]) }
        }
        #expect(try db.write { c in try Monitors.delete(c, id: a) })
        try db.read { (c: Connection) throws in
            #expect(try Self.dayRows(c) == 2)
            #expect(try CheckResults.rollupsAll(c, resolution: 3600, from: Int64.min, to: Int64.max).map(\.monitorID) == [b, b])
        }
    }

    /// Bytes that do not decode: a clear error on every read that covers
    /// them, while other days stay readable. The retention job's next hour
    /// of such a day replaces it (an error there would stop every pass);
    /// pruning removes one all the same.
    @Test(arguments: TestEngine.all) func aDamagedRowIsAnErrorNotACrash(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        let m = try db.write { c in try Self.monitor(c, "a") }
        try db.write { c in
            try CheckResults.upsertRollup(c, Self.rollup(m, Self.d0 + 2 * Self.day))
            for d: Int64 in [0, 1] {
                try c.execute("INSERT INTO rollup_days (monitor_id, day_start, hours) VALUES (?, ?, ?)",
                              [.integer(m), .integer(Self.d0 + d * Self.day), .blob([1, 1, 0, 0, 0, 0xFF])])
            }
        }
        func expectCorrupt(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("a damaged row was read")
            } catch let e as StoreError {
                #expect(e.code == SQLITE_CORRUPT && e.message.contains("monitor \(m), day \(Self.d0)"), "\(e)")
            } catch {
                Issue.record("\(error)")
            }
        }
        expectCorrupt { _ = try db.read { c in try CheckResults.rollups(c, monitorID: m, resolution: 3600, from: 0, to: Int64.max) } }
        expectCorrupt { _ = try db.read { c in try BatchReads.rollups(c, monitorIDs: [m], resolution: 3600, from: 0, to: Int64.max) } }
        expectCorrupt { _ = try db.read { c in try CheckResults.rollupsAll(c, resolution: 3600, from: 0, to: Self.d0 + Self.day) } }
        #expect(try db.read { c in
            try CheckResults.rollups(c, monitorID: m, resolution: 3600, from: Self.d0 + 2 * Self.day, to: Int64.max)
        } == [Self.rollup(m, Self.d0 + 2 * Self.day)])
        // An hour written into the first damaged day replaces it.
        try db.write { c in try CheckResults.upsertRollup(c, Self.rollup(m, Self.d0 + Self.hour, seed: 3)) }
        #expect(try db.read { c in try CheckResults.rollups(c, monitorID: m, resolution: 3600, from: 0, to: Self.d0 + Self.day) }
            == [Self.rollup(m, Self.d0 + Self.hour, seed: 3)])
        // The second one's header says one hour: pruning counts it and deletes it.
        #expect(try db.write { c in
            try CheckResults.deleteRollupsBefore(c, monitorID: m, resolution: 3600, before: Self.d0 + 2 * Self.day)
        } == 2)
        #expect(try db.read { c in try Self.dayRows(c) } == 1)
    }
}
