import Testing
import Store
import TestSupport

/// `ResultWrites`: a group's rows and monitor updates come back as written,
/// whatever the text holds (PostgreSQL passes them as array literals, where
/// quotes, backslashes, commas, braces and the word NULL mean something).
@Suite struct ResultWritesTests {
    static let awkward: [String?] = [
        nil, "", "NULL", "null", "a,b", "{x}", "say \"hi\"", "back\\slash", "\\\"", "tab\there\nnewline", "é ☃ 🚀",
        "  spaced  ", "'single'", "}{,\"\\",
    ]

    @Test(arguments: TestEngine.all) func rowsAndUpdatesRoundTrip(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        let ids = try db.write { c in
            try (0..<Self.awkward.count).map { i in
                try Monitors.insert(c, MonitorRecord(name: "m\(i)", type: "tcp", target: "h:\(i)", interval: 60, timeout: 10,
                                                     retries: 0), now: 1).id
            }
        }
        var rows: [CheckResultRecord] = []
        var updates: [ResultWrites.LastUpdate] = []
        for (i, text) in Self.awkward.enumerated() {
            let id = ids[i]
            rows.append(CheckResultRecord(monitorID: id, atMs: 5_000 + Int64(i), location: text ?? "hub", status: "up",
                                          latencyMs: i % 3 == 0 ? nil : Int64(i), statusCode: i % 2 == 0 ? nil : 200,
                                          error: text, inMaintenance: i % 2 == 0,
                                          packetLoss: i % 4 == 0 ? nil : Double(i) / 7))
            updates.append(ResultWrites.LastUpdate(
                id: id, state: "{\"s\":\"\(i)\"}" + (text ?? ""),
                last: Monitors.LastCheck(at: 5 + Int64(i), location: text ?? "hub", status: "up",
                                         latencyMs: i % 3 == 0 ? nil : Int64(i), statusCode: 200, error: text,
                                         certNotAfter: i == 2 ? 99 : nil, packetLoss: i % 4 == 0 ? nil : 0.125),
                status: i % 2 == 0 ? ("up", 7_000 + Int64(i)) : nil))
        }
        try db.write { c in
            let locked = try ResultWrites.statesForUpdate(c, ids: ids + [ids[0], 999_999])
            #expect(locked.keys.sorted() == ids)
            #expect(locked[ids[3]]?.status == "pending")
            try ResultWrites.insert(c, rows)
            try ResultWrites.update(c, updates)
        }
        let order = try db.read { c in
            try c.query("SELECT monitor_id FROM check_results ORDER BY id").map { r in try r.int("monitor_id") }
        }
        #expect(order == rows.map(\.monitorID), "rows in the order given")
        let stored = try db.read { c in
            try ids.flatMap { id in try CheckResults.range(c, monitorID: id, fromMs: 0, toMs: 10_000) }
        }
        for (s, r) in zip(stored, rows) {
            var expected = r
            expected.id = s.id
            #expect(s == expected)
        }
        for (i, u) in updates.enumerated() {
            let m = try #require(try db.read { try Monitors.find($0, id: ids[i]) })
            #expect(m.state == u.state)
            #expect(m.lastAt == u.last.at && m.lastLocation == u.last.location && m.lastStatus == "up")
            #expect(m.lastLatencyMs == u.last.latencyMs && m.lastStatusCode == 200 && m.lastError == u.last.error)
            #expect(m.lastPacketLoss == u.last.packetLoss)
            #expect(m.certNotAfter == (i == 2 ? 99 : nil))
            if i % 2 == 0 {
                #expect(m.status == "up" && m.statusSince == 7_000 + Int64(i))
            } else {
                #expect(m.status == "pending" && m.statusSince == 1, "status columns untouched")
            }
        }
    }
}
