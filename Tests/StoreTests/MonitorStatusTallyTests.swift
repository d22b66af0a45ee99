import Testing
import Core
@testable import Store
import TestSupport

/// The status counts kept by migration 0031's triggers
/// (`MonitorStatusTally`), on both engines: exact after every kind of
/// change, a fold keeps them, and a fold beside an open transaction's
/// delta neither loses nor doubles it.
@Suite struct MonitorStatusTallyTests {
    private func monitor(_ i: Int) -> MonitorRecord {
        MonitorRecord(name: "svc \(i)", type: "tcp", target: "db\(i).internal:5432", interval: 60, timeout: 5, retries: 1)
    }

    /// What a grouped COUNT over every monitor says.
    private func counted(_ c: Connection) throws(StoreError) -> [String: Int] {
        var out: [String: Int] = [:]
        for r in try c.query("SELECT status, count(*) AS n FROM monitors GROUP BY status") { out[try r.text("status")] = Int(try r.int("n")) }
        return out
    }

    private func rows(_ c: Connection) throws(StoreError) -> Int {
        Int(try c.scalar("SELECT count(*) FROM monitor_status_tally")?.integerValue ?? -1)
    }

    @Test(arguments: TestEngine.all) func countsFollowInsertsStatusChangesAndDeletes(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let ids = try db.write { c in try (0..<30).map { try Monitors.insert(c, monitor($0), now: 1).id } }
        #expect(try db.read { c in try MonitorStatusTally.read(c) } == .init(counts: ["pending": 30], rows: 30))
        try db.write { c in
            for (i, id) in ids.enumerated() {
                let status = ["up", "down", "degraded", "paused", "up", "up"][i % 6]
                try Monitors.updateState(c, id: id, status: status, statusSince: 2, state: "{}", paused: status == "paused")
            }
        }
        let before = try db.read { c in try rows(c) }
        // The same status again appends nothing; neither does a result.
        try db.write { c in
            try Monitors.updateState(c, id: ids[0], status: "up", statusSince: 3, state: "{}", paused: false)
            try Monitors.updateState(c, id: ids[0], state: "{}", last: Monitors.LastCheck(at: 3, location: "hub", status: "up",
                                                                                          latencyMs: 1, statusCode: nil, error: nil,
                                                                                          certNotAfter: nil))
        }
        #expect(try db.read { c in try rows(c) } == before)
        for id in ids.prefix(4) { _ = try db.write { c in try Monitors.delete(c, id: id) } }
        try db.read { (c: Connection) throws in
            let reading = try MonitorStatusTally.read(c)
            #expect(reading.counts == (try counted(c)))
            #expect(reading.counts == ["up": 14, "down": 4, "degraded": 4, "paused": 4])
            #expect(reading.rows == (try rows(c)))
        }
        // The fold: one row per status, the same counts; a status whose
        // monitors are all gone has no row left.
        try db.write { c in
            for id in ids where try Monitors.find(c, id: id)?.status == "degraded" { _ = try Monitors.delete(c, id: id) }
        }
        let removed = try db.write { c in try MonitorStatusTally.fold(c) }
        try db.read { (c: Connection) throws in
            #expect(try rows(c) == 3)
            #expect(removed == before + 4 + 4 - 3, "a delta per deleted monitor, then one row per status left")
            #expect(try MonitorStatusTally.read(c).counts == (try counted(c)))
            #expect(try MonitorListing.statusCounts(c) == ["up": 14, "down": 4, "paused": 4])
        }
        #expect(try db.write { c in try MonitorStatusTally.fold(c) } == 0)
    }

    /// A database that had monitors before 0031 starts from their counts.
    @Test(arguments: TestEngine.all) func theMigrationStartsFromTheMonitorsThere(engine: TestEngine) throws {
        let dir = TempDir()
        let url = try engine.url(in: dir.path)
        let old = try Database(url: try DatabaseURL(url), migrations: Migrations.all.filter { $0.name != Schema0031.migration.name })
        try old.write { c in
            for i in 0..<5 {
                let id = try Monitors.insert(c, monitor(i), now: 1).id
                if i < 2 { try Monitors.updateState(c, id: id, status: "down", statusSince: 1, state: "{}", paused: false) }
            }
        }
        old.close()
        let db = try Database(url: try DatabaseURL(url))
        defer { db.close() }
        #expect(try db.read { c in try MonitorStatusTally.read(c).counts } == ["down": 2, "pending": 3])
    }

    /// PostgreSQL: a fold commits while another transaction's status change
    /// is still open; that delta is neither folded away nor counted twice.
    @Test(.enabled(if: TestEngine.all.contains(.postgres), "needs the test PostgreSQL server"))
    func aFoldBesideAnOpenChangeKeepsIt() throws {
        let dir = TempDir()
        let url = try TestEngine.postgres.url(in: dir.path)
        let db = try Database(url: try DatabaseURL(url))
        defer { db.close() }
        let ids = try db.write { c in try (0..<3).map { try Monitors.insert(c, monitor($0), now: 1).id } }
        let other = try Connection(postgres: try DatabaseURL(url), role: .writer)
        defer { other.close() }
        try other.execute("BEGIN")
        try other.execute("UPDATE monitors SET status = 'down' WHERE id = ?", [.integer(ids[0])])
        #expect(try db.write { c in try MonitorStatusTally.fold(c) } == 3 - 1)
        try other.execute("COMMIT")
        try db.read { (c: Connection) throws in
            #expect(try MonitorStatusTally.read(c).counts == ["down": 1, "pending": 2])
            #expect(try MonitorStatusTally.read(c).counts == (try counted(c)))
        }
    }
}
