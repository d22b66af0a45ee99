import Testing
@testable import Store
import TestSupport

/// `?q=` through the trigram index (migration 0029, `MonitorSearch`), on
/// both engines: every path (SQLite's FTS5 walk, the candidate list, the
/// scan past `candidateLimit`, terms shorter than a trigram) finds what a
/// plain substring test finds, in each list's order, and the index follows
/// inserts, renames and deletes.
@Suite struct MonitorSearchStoreTests {
    /// More monitors than `candidateLimit` share "svc"; a few hold rarer
    /// text, including LIKE's and FTS5's own characters.
    private static let specials = ["50% off", "x_y", "back\\slash", "say \"hi\"", "Café Crème", "rare-needle"]

    private func seed(_ db: Database) throws -> [MonitorRecord] {
        let n = MonitorSearch.candidateLimit + 100
        return try db.write { c in
            try (0..<n).map { i in
                var name = "svc \(i)"
                if i % 997 == 0 { name += " " + Self.specials[(i / 997) % Self.specials.count] }
                var m = MonitorRecord(name: name, type: "tcp", target: "host\(i % 250).example:\(1000 + i % 3)",
                                      interval: 60, timeout: 5, retries: 1)
                // `many` is on more monitors than `candidateLimit`, `few` on fewer.
                m.tags = (i % 7 == 0 ? [] : ["many"]) + (i % 31 == 0 ? ["few"] : [])
                var stored = try Monitors.insert(c, m, now: 1)
                let status = i % 10 == 0 ? "down" : "up"
                try Monitors.updateState(c, id: stored.id, status: status, statusSince: 1, state: "{}", paused: false)
                stored.status = status
                return stored
            }
        }
    }

    /// What `?q=` means (docs/api.md): a substring of the name or the
    /// target, ASCII case folded on both sides.
    private func matches(_ m: MonitorRecord, _ q: String) -> Bool {
        func fold(_ s: String) -> String { String(s.unicodeScalars.map { ("A"..."Z").contains($0) ? Character(Unicode.Scalar($0.value + 32)!) : Character($0) }) }
        return fold(m.name).contains(fold(q)) || fold(m.target ?? "").contains(fold(q))
    }

    private func apiIDs(_ db: Database, _ filter: MonitorFilter, pageSize: Int) throws -> [Int64] {
        try MonitorPages.api(db, filter, pageSize: pageSize).map(\.id)
    }

    private func dashboardIDs(_ db: Database, _ filter: MonitorFilter, pageSize: Int) throws -> [Int64] {
        try MonitorPages.dashboard(db, filter, pageSize: pageSize).map(\.id)
    }

    @Test(arguments: TestEngine.all) func everyPathFindsWhatASubstringTestFinds(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let all = try seed(db)
        let terms = ["svc", "SVC 4", "svc 49", "host7.", "RARE-needle", "50%", "0%", "x_y", "_", "k\\s", "\"hi\"", "y \"", "café",
                     "sv", "e", "no such text"]
        for q in terms {
            let expected = all.filter { matches($0, q) }
            if q == "svc" { #expect(expected.count > MonitorSearch.candidateLimit) }
            #expect(try apiIDs(db, MonitorFilter(query: q), pageSize: 400) == expected.map(\.id), "api \(q)")
            let down = expected.filter { $0.status == "down" }
            #expect(try apiIDs(db, MonitorFilter(status: "down", query: q), pageSize: 150) == down.map(\.id), "api down \(q)")
            let worstFirst = down.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
                + expected.filter { $0.status == "up" }.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
            #expect(try dashboardIDs(db, MonitorFilter(query: q), pageSize: 300) == worstFirst.map(\.id), "dashboard \(q)")
        }
        // Tags, alone and with a term: rare ones through their list, common
        // ones looked up per entry, both at once through the rare one.
        let tagCases: [([String], String?)] = [(["many"], nil), (["few"], nil), (["few", "many"], nil), (["many"], "svc 4"),
                                                (["few"], "svc"), (["many", "few"], "host7."), (["nobody"], nil)]
        for (tags, q) in tagCases {
            let expected = all.filter { m in tags.allSatisfy(m.tags.contains) && (q.map { matches(m, $0) } ?? true) }
            let worstFirst = expected.filter { $0.status == "down" }.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
                + expected.filter { $0.status == "up" }.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
            #expect(try dashboardIDs(db, MonitorFilter(query: q, tags: tags), pageSize: 250) == worstFirst.map(\.id), "dashboard \(tags) \(q ?? "")")
            #expect(try apiIDs(db, MonitorFilter(query: q, tags: tags), pageSize: 400) == expected.map(\.id), "api \(tags) \(q ?? "")")
        }
        // The candidate list is used below its limit and given up above it.
        let found = try db.read { c in
            try ["rare-needle", "svc", "sv", "svc 4", "host7."].map { q throws(StoreError) in try MonitorSearch.candidates(c, term: q) }
        }
        #expect(found[0]?.count == all.filter { matches($0, "rare-needle") }.count)
        #expect(found[1] == nil)
        #expect(found[2] == nil)
        // "svc 4" is in 111 of the first 1,000 monitors: PostgreSQL skips
        // the probe (`dense`) and scans, SQLite's FTS5 probe stops at its
        // LIMIT anyway. "host7." is in 44 of them: probed on both. The
        // lists above found the same monitors either way.
        let svc4 = all.filter { matches($0, "svc 4") }.count
        #expect(svc4 < MonitorSearch.candidateLimit)
        #expect(found[3]?.count == (engine == .postgres ? nil : svc4))
        #expect(found[4]?.count == all.filter { matches($0, "host7.") }.count)
    }

    @Test(arguments: TestEngine.all) func theIndexFollowsRenamesAndDeletes(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let ids = try db.write { c in
            try ["Checkout API", "checkout web", "Billing"].map { name in
                try Monitors.insert(c, MonitorRecord(name: name, type: "tcp", target: "\(name.prefix(3)).example:443",
                                                     interval: 60, timeout: 5, retries: 1), now: 1).id
            }
        }
        func both(_ q: String) throws -> [Int64] {
            let api = try apiIDs(db, MonitorFilter(query: q), pageSize: 10)
            #expect(Set(try dashboardIDs(db, MonitorFilter(query: q), pageSize: 10)) == Set(api), "\(q)")
            return api
        }
        #expect(try both("checkout") == [ids[0], ids[1]])
        var renamed = try #require(try db.read { c in try Monitors.find(c, id: ids[0]) })
        renamed.name = "Payments gateway"
        _ = try db.write { c in try Monitors.updateConfig(c, renamed, now: 2) }
        #expect(try both("checkout") == [ids[1]])
        #expect(try both("gateway") == [ids[0]])
        #expect(try both("che.example") == [ids[0], ids[1]], "the targets are unchanged")
        _ = try db.write { c in try Monitors.delete(c, id: ids[1]) }
        #expect(try both("checkout") == [])
        #expect(try both("billing") == [ids[2]])
        if engine == .sqlite {
            // FTS5 compares its index with the monitors' `search` text.
            try db.write { c in try c.execute("INSERT INTO monitors_fts (monitors_fts, rank) VALUES ('integrity-check', 1)") }
        }
    }

    /// The index each engine's search goes through is there, and SQLite's
    /// API search walks FTS5 in rowid order with no sort.
    @Test(arguments: TestEngine.all) func theTrigramIndexIsUsed(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        switch engine {
        case .sqlite:
            let sql = "EXPLAIN QUERY PLAN " + Monitors.SQL.listByTrigram + Monitors.SQL.listByTrigramEnd
            let plan = try db.read { c in
                try c.query(sql, [.integer(0), .null, .null, .text("needle"), .integer(501)]).map { r throws(StoreError) in try r.text("detail") }
            }
            #expect(plan.contains { $0.contains("SCAN monitors_fts VIRTUAL TABLE") }, "\(plan)")
            #expect(plan.contains { $0.contains("SEARCH monitors USING INTEGER PRIMARY KEY") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "no sort: \(plan)")
        case .postgres:
            let definition = try db.read { c in
                try c.queryOne("""
                    SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'monitors_search_trgm'
                    """)?.text("indexdef")
            }
            #expect(definition?.contains("gin_trgm_ops") == true, "\(definition ?? "no index")")
        }
    }
}
