import Testing
@testable import Store
import TestSupport

/// What a monitor's row costs PostgreSQL per write (migration 0030,
/// `MonitorListing.searchOfParameters`): creating or reconfiguring a
/// monitor writes its row once, and a check result's update is HOT (no
/// index entry) even on a page that inserts filled. Counted with
/// `pg_stat_xact_user_tables`, the current transaction's own figures.
@Suite struct MonitorRowVersionTests {
    private func monitor(_ i: Int) -> MonitorRecord {
        MonitorRecord(name: "checkout service \(i)", type: "http", target: "https://checkout-\(i).internal.example/healthz",
                      interval: 60, timeout: 5, retries: 1)
    }

    /// (updates, HOT updates) of `monitors` in this transaction so far.
    private func updates(_ c: Connection) throws -> (Int64, Int64) {
        let r = try #require(try c.queryOne("""
            SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relid = 'monitors'::regclass
            """))
        return (try r.int("n_tup_upd"), try r.int("n_tup_hot_upd"))
    }

    @Test(arguments: TestEngine.all) func createAndReconfigureWriteTheSearchColumnInTheirOwnStatement(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let id = try db.write { c in
            let m = try Monitors.insert(c, monitor(1), now: 1)
            if engine == .postgres { #expect(try updates(c) == (0, 0), "an insert is one row version") }
            return m.id
        }
        try db.write { c in
            var m = try #require(try Monitors.find(c, id: id))
            m.name = "Payments API"
            m.target = "https://Payments.example/Health"
            _ = try Monitors.updateConfig(c, m, now: 2)
            if engine == .postgres { #expect(try updates(c).0 == 1, "a reconfiguration is one update") }
        }
        let search = try db.read { c in try c.scalar("SELECT search FROM monitors WHERE id = ?", [.integer(id)]) }
        #expect(search == .text("payments api\nhttps://payments.example/health"))
        let derived = try db.read { c in
            try c.scalar("SELECT \(MonitorListing.searchSQL) FROM monitors WHERE id = ?", [.integer(id)])
        }
        #expect(derived == search, "the column equals the expression migration 0027 filled it with")
    }

    @Test func aResultUpdateIsHOTOnAPageInsertsFilled() throws {
        guard TestEngine.all.contains(.postgres) else { return }
        let dir = TempDir()
        let db = try TestEngine.postgres.open(in: dir.path)
        let options = try db.read { c in
            try c.scalar("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = 'monitors'::regclass")
        }
        #expect(options == .text("fillfactor=70"))
        // Enough rows for several pages; the first monitor's page is as full
        // as inserts leave it.
        let first = try db.write { c in try (0..<200).map { i in try Monitors.insert(c, monitor(i), now: 1) }.first! }
        try db.write { c in
            let last = Monitors.LastCheck(at: 2, location: "hub", status: "up", latencyMs: 12, statusCode: 200,
                                          error: "connection refused by 10.0.0.1:443", certNotAfter: nil)
            try Monitors.updateState(c, id: first.id, state: #"{"consecutive_failures":0}"#, last: last)
            #expect(try updates(c) == (1, 1))
        }
    }
}
