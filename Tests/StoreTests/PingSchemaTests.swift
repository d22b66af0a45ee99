import Testing
import Store
import TestSupport

/// Migration 0021_ping: `monitors.type` accepts `ping` (and still nothing
/// unknown) on both engines, and `packet_loss` round-trips on results and
/// on the monitor's last check.
@Suite struct PingSchemaTests {
    @Test(arguments: TestEngine.all) func pingTypeAndPacketLossAreStored(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let monitor = try db.write { c in
            try Monitors.insert(c, MonitorRecord(name: "gw", type: "ping", target: "10.0.0.1", interval: 60, timeout: 10, retries: 0), now: 1)
        }
        #expect(throws: StoreError.self, "the CHECK still refuses unknown types") {
            try db.write { c in
                try Monitors.insert(c, MonitorRecord(name: "x", type: "icmp", target: "h", interval: 60, timeout: 10, retries: 0), now: 1)
            }
        }
        try db.write { c in
            try CheckResults.insert(c, CheckResultRecord(monitorID: monitor.id, atMs: 5_000, location: "hub", status: "up", latencyMs: 3,
                                                         statusCode: nil, error: nil, inMaintenance: false, packetLoss: 0.333))
            try CheckResults.insertMany(c, [CheckResultRecord(monitorID: monitor.id, atMs: 6_000, location: "hub", status: "down",
                                                              latencyMs: nil, statusCode: nil, error: "x", inMaintenance: false,
                                                              packetLoss: 1),
                                            CheckResultRecord(monitorID: monitor.id, atMs: 7_000, location: "hub", status: "up",
                                                              latencyMs: 1, statusCode: nil, error: nil, inMaintenance: false)])
            try Monitors.updateState(c, id: monitor.id, status: "up", statusSince: 5, state: "{}", paused: false,
                                     last: Monitors.LastCheck(at: 5, location: "hub", status: "up", latencyMs: 3, statusCode: nil,
                                                              error: nil, certNotAfter: nil, packetLoss: 0.5))
        }
        let (rows, record) = try db.read { c in
            (try CheckResults.range(c, monitorID: monitor.id, fromMs: 0, toMs: 10_000), try Monitors.find(c, id: monitor.id))
        }
        #expect(rows.map(\.packetLoss) == [0.333, 1, nil])
        #expect(record?.lastPacketLoss == 0.5)
        #expect(record?.type == "ping")
        // SQLite: a second open of the file (migration already recorded, new
        // connections) reads the edited table definition. (Each PostgreSQL
        // open is a fresh schema.)
        if case .sqlite = engine {
            let again = try engine.open(in: dir.path)
            #expect(try again.read { c in try Monitors.find(c, id: monitor.id)?.type } == "ping")
            #expect(throws: StoreError.self) {
                try again.write { c in
                    try Monitors.insert(c, MonitorRecord(name: "y", type: "icmp", target: "h", interval: 60, timeout: 10, retries: 0), now: 1)
                }
            }
            _ = try again.write { c in
                try Monitors.insert(c, MonitorRecord(name: "z", type: "ping", target: "h", interval: 60, timeout: 10, retries: 0), now: 1)
            }
        }
    }
}
