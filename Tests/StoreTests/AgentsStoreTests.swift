import Testing
import Store
import TestSupport

/// `agents` (migration 0007) and the result de-duplication query.
@Suite struct AgentsStoreTests {
    private func fresh(_ engine: TestEngine) throws -> (TempDir, Database) {
        let dir = TempDir()
        return (dir, try engine.open(in: dir.path))
    }

    @Test(arguments: TestEngine.all) func insertFindListTouchStatusDelete(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let hash = [UInt8](repeating: 7, count: 32)
        let eu = try db.write { c in try Agents.insert(c, name: "eu-west", tokenHash: hash, now: 100) }
        #expect(eu == AgentRecord(id: eu.id, name: "eu-west", tokenHash: hash, createdAt: 100, lastSeenAt: nil,
                                  status: "pending", statusSince: 100, version: nil, address: nil))
        // Unique name, unique token hash.
        #expect(throws: StoreError.self) { try db.write { c in try Agents.insert(c, name: "eu-west", tokenHash: [1], now: 101) } }
        do {
            _ = try db.write { c in try Agents.insert(c, name: "eu-west", tokenHash: [2], now: 101) }
            Issue.record("a taken name must be refused")
        } catch let e as StoreError {
            #expect(e.isUniqueViolation)
        }
        #expect(throws: StoreError.self) { try db.write { c in try Agents.insert(c, name: "us", tokenHash: hash, now: 101) } }
        let us = try db.write { c in try Agents.insert(c, name: "us-east", tokenHash: [9], now: 102) }

        try db.write { c in
            try Agents.touch(c, id: eu.id, at: 150, version: "1.4.0", address: "203.0.113.9")
            try Agents.setStatus(c, id: eu.id, status: "online", since: 150)
        }
        try db.read { c throws in
            let found = try #require(try Agents.find(c, name: "eu-west"))
            #expect(found.lastSeenAt == 150 && found.version == "1.4.0" && found.address == "203.0.113.9")
            #expect(found.status == "online" && found.statusSince == 150)
            #expect(try Agents.find(c, id: us.id)?.name == "us-east")
            #expect(try Agents.find(c, name: "nope") == nil)
            #expect(try Agents.all(c).map(\.name) == ["eu-west", "us-east"])
            #expect(try Agents.list(c, afterID: nil, limit: 1).map(\.id) == [eu.id])
            #expect(try Agents.list(c, afterID: eu.id, limit: 10).map(\.id) == [us.id])
        }
        // The status column only takes the three states.
        #expect(throws: StoreError.self) { try db.write { c in try Agents.setStatus(c, id: eu.id, status: "lost", since: 1) } }
        #expect(try db.write { c in try Agents.delete(c, id: eu.id) })
        #expect(try !db.write { c in try Agents.delete(c, id: eu.id) })
        #expect(try db.read { c in try Agents.find(c, id: eu.id) } == nil)
    }

    @Test(arguments: TestEngine.all) func resultExistsPerMonitorLocationAndMillisecond(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let monitor = try db.write { c in
            try Monitors.insert(c, MonitorRecord(name: "api", type: "tcp", target: "h:1", interval: 60, timeout: 10, retries: 0), now: 1)
        }
        try db.write { c in
            try CheckResults.insert(c, CheckResultRecord(monitorID: monitor.id, atMs: 1_764_410_000_123, location: "eu", status: "up",
                                                         latencyMs: 5, statusCode: nil, error: nil, inMaintenance: false))
        }
        try db.read { c throws in
            #expect(try CheckResults.exists(c, monitorID: monitor.id, location: "eu", atMs: 1_764_410_000_123))
            #expect(try !CheckResults.exists(c, monitorID: monitor.id, location: "eu", atMs: 1_764_410_000_124))
            #expect(try !CheckResults.exists(c, monitorID: monitor.id, location: "us", atMs: 1_764_410_000_123))
            #expect(try !CheckResults.exists(c, monitorID: monitor.id + 1, location: "eu", atMs: 1_764_410_000_123))
            // The lookup is served by the (monitor_id, at_ms) index.
            if engine == .sqlite {
                let plan = try c.query("EXPLAIN QUERY PLAN SELECT 1 FROM check_results WHERE monitor_id = 1 AND at_ms = 2 AND location = 'x'")
                #expect(plan.contains { (try? $0.text("detail"))?.contains("check_results_monitor_at") == true })
            } else {
                // A planner with an empty table may prefer a scan: ask it not to.
                try c.execute("SET LOCAL enable_seqscan = off")
                let plan = try c.query("EXPLAIN SELECT 1 FROM check_results WHERE monitor_id = 1 AND at_ms = 2 AND location = 'x'")
                #expect(plan.contains { (try? $0.text("QUERY PLAN"))?.contains("check_results_monitor_at") == true })
            }
        }
    }
}
