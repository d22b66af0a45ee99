import Testing
@testable import Store
import TestSupport

/// The tag filter is an index search, not a scan of `monitors` (SQLite's
/// plan; PostgreSQL's planner chooses by statistics, so only SQLite's plan
/// is stable enough to assert).
@Suite struct MonitorTagsPlanTests {
    @Test func tagFilterSearchesThePrimaryKey() throws {
        let dir = TempDir()
        let db = try TestEngine.sqlite.open(in: dir.path)
        let sql = "EXPLAIN QUERY PLAN " + Monitors.SQL.list + Monitors.SQL.allTags(2) + Monitors.SQL.listEnd
        let plan = try db.read { c in
            try c.query(sql, [.integer(0), .null, .null, .null, .integer(50), .text("eu"), .text("prod")]).map { r in try r.text("detail") }
        }
        #expect(plan.filter { $0.contains("monitor_tags") }.count == 2, "\(plan)")
        #expect(plan.filter { $0.contains("monitor_tags") }.allSatisfy { $0.contains("SEARCH") && $0.contains("tag=?") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN monitor_tags") }, "\(plan)")
    }
}
