import Testing
@testable import Store
import TestSupport

/// The dashboard's worst-first pages and the `?q=` search column
/// (migration 0027, `MonitorListing`), on both engines.
@Suite struct MonitorListingStoreTests {
    static let statuses = ["up", "down", "degraded", "pending", "paused"]

    /// 60 monitors: statuses in rotation, names that differ in case and
    /// repeat (ties broken by id), every third tagged `prod`, every fifth
    /// with `Shop` in its target only.
    private func seed(_ db: Database) throws -> [MonitorRecord] {
        try db.write { c in
            try (0..<60).map { i in
                let name = ["alpha", "Bravo", "charlie", "Delta", "echo"][i % 5] + " \(i % 7)"
                var m = MonitorRecord(name: name, type: "tcp", target: i % 5 == 0 ? "SHOP-\(i).example:443" : "db\(i).internal:5432",
                                      interval: 60, timeout: 5, retries: 1)
                m.tags = i % 3 == 0 ? ["prod"] : []
                var stored = try Monitors.insert(c, m, now: 1)
                let status = Self.statuses[(i * 7 / 3) % 5]
                try Monitors.updateState(c, id: stored.id, status: status, statusSince: 1, state: "{}", paused: status == "paused")
                stored.status = status
                return stored
            }
        }
    }

    private func pages(_ db: Database, _ filter: MonitorFilter, pageSize: Int) throws -> [MonitorRecord] {
        try MonitorPages.dashboard(db, filter, pageSize: pageSize)
    }

    /// Worst first, then name without case, then id.
    private func inOrder(_ a: MonitorRecord, _ b: MonitorRecord) -> Bool {
        let (ra, rb) = (MonitorListing.rank(a.status), MonitorListing.rank(b.status))
        if ra != rb { return ra < rb }
        if a.name.lowercased() != b.name.lowercased() { return a.name.lowercased() < b.name.lowercased() }
        return a.id < b.id
    }

    @Test(arguments: TestEngine.all) func pagesListEveryMatchOnceWorstFirst(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let all = try seed(db)
        let filters: [(MonitorFilter, (MonitorRecord) -> Bool)] = [
            (MonitorFilter(), { _ in true }),
            (MonitorFilter(status: "down"), { $0.status == "down" }),
            (MonitorFilter(status: "paused"), { $0.status == "paused" }),
            (MonitorFilter(tags: ["prod"]), { $0.tags == ["prod"] }),
            (MonitorFilter(query: "shop"), { $0.target?.lowercased().contains("shop") == true }),
            (MonitorFilter(query: "ALPHA 3"), { $0.name == "alpha 3" }),
            (MonitorFilter(status: "up", query: "o", tags: ["prod"]), {
                $0.status == "up" && $0.tags == ["prod"] && ($0.name.lowercased().contains("o") || $0.target!.lowercased().contains("o"))
            }),
        ]
        for (filter, matches) in filters {
            let expected = all.filter(matches).sorted(by: inOrder)
            #expect(!expected.isEmpty)
            for size in [1, 4, 7, 100] {
                let got = try pages(db, filter, pageSize: size)
                #expect(got.map(\.id) == expected.map(\.id), "filter \(filter) page size \(size)")
            }
        }
        // A match lies in the name or in the target, never across both
        // ("alpha 0" then "db5…" would hold "0db"; the newline is dropped).
        #expect(try pages(db, MonitorFilter(query: "0\ndb"), pageSize: 10).isEmpty)
        #expect(try pages(db, MonitorFilter(query: "0db"), pageSize: 10).isEmpty)
        #expect(try db.read { c in try MonitorListing.statusCounts(c) }
                == Dictionary(grouping: all, by: \.status).mapValues(\.count))
    }

    @Test(arguments: TestEngine.all) func apiSearchPagesInIdOrderAndFollowsRenames(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let all = try seed(db)
        func ids(_ filter: MonitorFilter, pageSize: Int) throws -> [Int64] {
            try MonitorPages.api(db, filter, pageSize: pageSize).map(\.id)
        }
        for status in ["down", "up", "paused"] {
            #expect(try ids(MonitorFilter(status: status), pageSize: 2) == all.filter { $0.status == status }.map(\.id))
        }
        #expect(try ids(MonitorFilter(status: "up", query: "o", tags: ["prod"]), pageSize: 1) == all.filter {
            $0.status == "up" && $0.tags == ["prod"] && ($0.name.lowercased().contains("o") || $0.target!.lowercased().contains("o"))
        }.map(\.id))
        let shop = all.filter { $0.target!.hasPrefix("SHOP") }.map(\.id)
        #expect(try ids(MonitorFilter(query: "sHoP"), pageSize: 3) == shop)
        #expect(try ids(MonitorFilter(query: "shop", tags: ["prod"]), pageSize: 2) == all.filter { $0.target!.hasPrefix("SHOP") && !$0.tags.isEmpty }.map(\.id))
        // A rename moves the monitor in and out of a search.
        var renamed = try #require(try db.read { c in try Monitors.find(c, id: all[1].id) })
        renamed.name = "Webshop front"
        renamed.target = nil
        _ = try db.write { c in try Monitors.updateConfig(c, renamed, now: 2) }
        #expect(try ids(MonitorFilter(query: "WEBSHOP"), pageSize: 5) == [all[1].id])
        // Its old target no longer matches; another's still does.
        #expect(try ids(MonitorFilter(query: "db1.internal"), pageSize: 5) == [])
        #expect(try ids(MonitorFilter(query: "db11.INTERNAL"), pageSize: 5) == [all[11].id])
    }

    /// `?status=` on the API is a range of `monitors_status`, not a walk of
    /// every id (SQLite's plan).
    @Test func apiStatusFilterSearchesTheStatusIndex() throws {
        let dir = TempDir()
        let db = try TestEngine.sqlite.open(in: dir.path)
        let sql = "EXPLAIN QUERY PLAN " + Monitors.SQL.listByStatus + Monitors.SQL.listEnd
        let plan = try db.read { c in
            try c.query(sql, [.integer(0), .text("down"), .null, .null, .integer(501)]).map { r in try r.text("detail") }
        }
        #expect(plan.contains { $0.contains("SEARCH monitors USING INDEX monitors_status") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "no sort: \(plan)")
    }

    /// A page is an index range, not a scan of every monitor (SQLite's plan;
    /// PostgreSQL's planner chooses by statistics).
    @Test func worstFirstPageSearchesTheIndex() throws {
        let dir = TempDir()
        let db = try TestEngine.sqlite.open(in: dir.path)
        let sql = "EXPLAIN QUERY PLAN SELECT * FROM monitors WHERE \(MonitorListing.rankSQL) = ? AND name COLLATE NOCASE >= ?"
            + " AND (name COLLATE NOCASE > ? OR id > ?) AND instr(search, lower(?)) > 0 ORDER BY name COLLATE NOCASE, id LIMIT ?"
        let plan = try db.read { c in
            try c.query(sql, [.integer(3), .text("m"), .text("m"), .integer(5), .text("x"), .integer(101)]).map { r in try r.text("detail") }
        }
        #expect(plan.contains { $0.contains("SEARCH monitors USING INDEX monitors_worst_first") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "no sort: \(plan)")
    }
}
