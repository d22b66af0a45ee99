import Testing
@testable import Store
import TestSupport

/// Migration 0033_row_checks: the CHECKs of `check_results.status` and
/// `heartbeat_pings.kind` accept and refuse what they did, on both engines;
/// on SQLite they are plain comparisons (no ephemeral table per row).
@Suite struct RowChecksSchemaTests {
    private static func result(_ monitor: Int64, _ at: Int64, _ status: String) -> CheckResultRecord {
        CheckResultRecord(monitorID: monitor, atMs: at, location: "hub", status: status, latencyMs: 1, statusCode: nil,
                          error: nil, inMaintenance: false)
    }

    private static func ping(_ monitor: Int64, _ at: Int64, _ kind: String) -> Heartbeats.NewPing {
        Heartbeats.NewPing(monitorID: monitor, atMs: at, kind: kind, exitCode: nil, body: [], client: nil)
    }

    @Test(arguments: TestEngine.all) func theChecksStillRefuseUnknownValues(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let monitor = try db.write { c in
            try Monitors.insert(c, MonitorRecord(name: "hb", type: "heartbeat", target: "", interval: 60, timeout: 10, retries: 0), now: 1)
        }
        try db.write { c in
            try CheckResults.insertMany(c, ["up", "degraded", "down"].enumerated().map { Self.result(monitor.id, Int64($0.offset), $0.element) })
            try Heartbeats.insertMany(c, ["success", "start", "fail"].enumerated().map { Self.ping(monitor.id, Int64($0.offset), $0.element) })
        }
        for bad in ["UP", "unknown", "", "up "] {
            #expect(throws: StoreError.self, "status \(bad)") {
                try db.write { c in try CheckResults.insertMany(c, [Self.result(monitor.id, 9, "up"), Self.result(monitor.id, 10, bad)]) }
            }
            #expect(throws: StoreError.self, "kind \(bad)") {
                try db.write { c in try Heartbeats.insertMany(c, [Self.ping(monitor.id, 9, "success"), Self.ping(monitor.id, 10, bad)]) }
            }
        }
        let counts = try db.read { c in
            (try c.scalar("SELECT count(*) FROM check_results")?.integerValue,
             try c.scalar("SELECT count(*) FROM heartbeat_pings")?.integerValue)
        }
        #expect(counts.0 == 3 && counts.1 == 3, "a refused group leaves nothing behind")
        guard case .sqlite = engine else { return }
        // A second open of the file (migration recorded) reads the edited
        // definitions, and the insert the writer runs opens no ephemeral table.
        let again = try engine.open(in: dir.path)
        let (definitions, opcodes) = try again.read { c in
            (try c.query("SELECT sql FROM sqlite_schema WHERE name IN ('check_results', 'heartbeat_pings')")
                .map { r throws(StoreError) in try r.text("sql") },
             try c.query("EXPLAIN INSERT INTO check_results (monitor_id, at_ms, location, status) VALUES (1, 1, 'hub', 'up'), (1, 2, 'hub', 'down')")
                .map { r throws(StoreError) in try r.text("opcode") })
        }
        #expect(definitions.count == 2)
        #expect(definitions.allSatisfy { !$0.contains(" IN (") }, "\(definitions)")
        #expect(opcodes.contains("Insert") && !opcodes.contains("OpenEphemeral"))
        #expect(throws: StoreError.self) {
            try again.write { c in try CheckResults.insert(c, Self.result(monitor.id, 11, "sideways")) }
        }
    }

    @Test func anEditWhoseTextIsMissingChangesNothing() throws {
        let dir = TempDir()
        let db = try TestEngine.sqlite.open(in: dir.path)
        let before = try db.read { c in try c.scalar("SELECT sql FROM sqlite_schema WHERE name = 'check_results'") }
        #expect(throws: StoreError.self) {
            try db.write { c in
                try StoredDefinition.replace(c, [.init(table: "check_results", old: "CHECK (status = 'up'", new: "CHECK (1"),
                                                 .init(table: "heartbeat_pings", old: "no such text", new: "x")],
                                             migration: "test")
            }
        }
        let after = try db.read { c in try c.scalar("SELECT sql FROM sqlite_schema WHERE name = 'check_results'") }
        #expect(before == after && before != nil)
    }
}
