import Testing
import Store
import TestSupport
import Core

/// `stable_key` of the five keyed tables (migration 0023_keys, SPEC §13).
@Suite struct ObjectKeysStoreTests {
    /// One object of every keyed kind, by kind.
    func seed(_ db: Database) throws -> [KeyedKind: Int64] {
        try db.write { c in
            let m = try Monitors.insert(c, MonitorRecord(name: "API health", type: "tcp", target: "h:1", interval: 60, timeout: 10, retries: 0), now: 1)
            let ch = try Channels.insert(c, ChannelRecord(name: "Ops Slack", type: "webhook", enabled: true, events: [.monitorDown],
                                                          monitorIDs: [], reminderMinutes: 0, config: JSONObject([("url", .string("http://127.0.0.1:1/"))])), now: 1)
            let w = try MaintenanceWindows.insert(c, MaintenanceRecord(title: "Nightly", monitorIDs: [], startsAt: 10, endsAt: 20, createdBy: nil), now: 1)
            let p = try EscalationPolicies.insert(c, EscalationPolicyRecord(name: "On call", repeatCount: 0,
                                                                          steps: [EscalationStepRecord(channelIDs: [ch.id], delayMinutes: 5)]), now: 1)
            let s = try StatusPages.insert(c, StatusPageRecord(slug: "acme", title: "Acme status", description: "", monitorIDs: []), now: 1)
            return [.monitor: m.id, .channel: ch.id, .maintenance: w.id, .escalationPolicy: p.id, .statusPage: s.id]
        }
    }

    @Test(arguments: TestEngine.all) func setFindClearAndUniquePerKind(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let ids = try seed(db)
        for kind in KeyedKind.allCases {
            let id = try #require(ids[kind])
            try db.read { c throws in
                #expect(try ObjectKeys.key(c, kind, id: id) == nil, "\(kind): no key until one is set")
                #expect(try ObjectKeys.unkeyed(c, kind).map(\.id) == [id])
            }
            // The same key on every kind: unique per kind, not across kinds.
            #expect(try db.write { c in try ObjectKeys.set(c, kind, id: id, key: "prod") })
            try db.read { c throws in
                #expect(try ObjectKeys.key(c, kind, id: id) == "prod")
                #expect(try ObjectKeys.id(c, kind, key: "prod") == id)
                #expect(try ObjectKeys.id(c, kind, key: "other") == nil)
                #expect(try ObjectKeys.keys(c, kind) == [id: "prod"])
                #expect(try ObjectKeys.unkeyed(c, kind).isEmpty)
            }
            #expect(try db.write { c in try ObjectKeys.set(c, kind, id: 9_999, key: "x") } == false, "\(kind): no such row")
        }
        // A second monitor cannot take a key the first one has.
        let second = try db.write { c in
            try Monitors.insert(c, MonitorRecord(name: "web", type: "tcp", target: "h:2", interval: 60, timeout: 10, retries: 0), now: 2)
        }
        do {
            try db.write { c in _ = try ObjectKeys.set(c, .monitor, id: second.id, key: "prod") }
            Issue.record("a taken key was set on \(engine)")
        } catch let e as StoreError {
            #expect(e.isUniqueViolation, "\(e)")
        }
        // Two objects without a key are fine (NULLs do not collide); clearing frees the key.
        let first = try #require(ids[.monitor])
        try db.write { c in _ = try ObjectKeys.set(c, .monitor, id: first, key: nil) }
        try db.read { c throws in
            #expect(try ObjectKeys.unkeyed(c, .monitor).map(\.id) == [first, second.id])
            #expect(try ObjectKeys.unkeyed(c, .monitor).map(\.name) == ["API health", "web"])
        }
        try db.write { c in _ = try ObjectKeys.set(c, .monitor, id: second.id, key: "prod") }
        // Deleting the row deletes its key with it.
        #expect(try db.write { c in try Monitors.delete(c, id: second.id) })
        try db.write { c in _ = try ObjectKeys.set(c, .monitor, id: first, key: "prod") }
        #expect(try db.read { c in try ObjectKeys.id(c, .monitor, key: "prod") } == first)
    }
}
