import Testing
import Store
import TestSupport

/// `monitors.tags` and its index `monitor_tags` (migration 0019).
@Suite struct MonitorTagsStoreTests {
    private func monitor(_ name: String, _ tags: [String]) -> MonitorRecord {
        var m = MonitorRecord(name: name, type: "tcp", target: "10.0.0.1:22", interval: 60, timeout: 5, retries: 1)
        m.tags = tags
        return m
    }

    @Test(arguments: TestEngine.all) func filterByAllGivenTagsAndKeepIndexInStep(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let (a, b, c3) = try db.write { c in
            (try Monitors.insert(c, monitor("a", ["eu", "prod"]), now: 1),
             try Monitors.insert(c, monitor("b", ["prod"]), now: 1),
             try Monitors.insert(c, monitor("c", ["eu", "prod", "web"]), now: 1))
        }
        func list(_ tags: [String], after: Int64? = nil, limit: Int = 10) throws -> [Int64] {
            try db.read { c in try Monitors.list(c, filter: MonitorFilter(tags: tags), afterID: after, limit: limit).map(\.id) }
        }
        #expect(try list([]) == [a.id, b.id, c3.id])
        #expect(try list(["prod"]) == [a.id, b.id, c3.id])
        #expect(try list(["eu", "prod"]) == [a.id, c3.id])
        #expect(try list(["eu", "prod", "web"]) == [c3.id])
        #expect(try list(["eu", "nope"]) == [])
        #expect(try list(["prod"], after: a.id, limit: 1) == [b.id])
        #expect(try db.read { c in try Monitors.find(c, id: a.id)?.tags } == ["eu", "prod"])

        // An update replaces the index rows; a delete removes them.
        var changed = try #require(try db.read { c in try Monitors.find(c, id: a.id) })
        changed.tags = ["web"]
        _ = try db.write { c in try Monitors.updateConfig(c, changed, now: 2) }
        #expect(try list(["eu"]) == [c3.id])
        #expect(try list(["web"]) == [a.id, c3.id])
        #expect(try db.read { c in try MonitorTags.monitorIDs(c, anyOf: ["web", "prod"]) } == [a.id, b.id, c3.id])
        _ = try db.write { c in try Monitors.delete(c, id: c3.id) }
        #expect(try list(["web"]) == [a.id])
        let counts = try db.read { c in try MonitorTags.counts(c) }
        #expect(counts.map(\.tag) == ["prod", "web"] && counts.map(\.monitors) == [1, 1])
    }
}
