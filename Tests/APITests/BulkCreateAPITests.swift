import Core
import Testing
import TestSupport

/// `POST /api/monitors/bulk` with `"action": "create"` through the running
/// binary: many monitors in one request, all or none, each checked at its
/// slot within one interval.
@Suite struct BulkCreateAPITests {
    @Test(arguments: TestEngine.all) func createsEveryMonitorOrNone(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        func bulk(_ monitors: [JSON]) throws -> WireResponse {
            try hub.call("POST", "/api/monitors/bulk", json: ["action": "create", "monitors": .array(monitors)])
        }
        let answer = try expectJSON(try bulk([
            httpMonitor("web-1", target.healthURL, [("interval", 10), ("tags", ["Web"])]),
            httpMonitor("web-2", target.healthURL, [("interval", 10), ("key", "web-two")]),
            monitorBody("cron", type: "heartbeat", target: nil),
        ]))
        let ids = answer["affected"]?.arrayValue?.compactMap(\.intValue) ?? []
        #expect(ids.count == 3 && ids == ids.sorted())
        guard ids.count == 3 else { return }
        let (one, two, cron) = (try hub.monitor(ids[0]), try hub.monitor(ids[1]), try hub.monitor(ids[2]))
        #expect(one["name"] == "web-1" && one["tags"] == ["web"])
        #expect(two["key"] == "web-two")
        #expect(cron["type"] == "heartbeat" && cron["ping_url"]?.stringValue?.contains("/ping/") == true)
        // Checked at their slot: within one 10 s interval, not at once.
        try hub.waitForStatus(ids[0], "up", timeoutMillis: 25_000)
        try hub.waitForStatus(ids[1], "up", timeoutMillis: 25_000)

        // Refusals name the item and create nothing.
        func count() throws -> Int { try expectJSON(try hub.call("GET", "/api/monitors"))["items"]?.arrayValue?.count ?? -1 }
        let before = try count()
        expectError(try bulk([httpMonitor("ok", target.healthURL), httpMonitor("bad", target.healthURL, [("interval", 1)])]),
                    400, "validation_failed", field: "monitors[1].interval")
        expectError(try bulk([httpMonitor("a", target.healthURL, [("key", "k")]), httpMonitor("b", target.healthURL, [("key", "k")])]),
                    400, "validation_failed", field: "monitors[1].key")
        expectError(try bulk([httpMonitor("c", target.healthURL), httpMonitor("d", target.healthURL, [("key", "web-two")])]),
                    409, "key_taken", field: "monitors[1].key")
        expectError(try bulk([httpMonitor("e", target.healthURL, [("escalation_policy_id", 999_999)])]),
                    400, "validation_failed", field: "monitors[0].escalation_policy_id")
        expectError(try bulk([httpMonitor("f", target.healthURL, [("depends_on", [999_999])])]),
                    400, "validation_failed", field: "monitors[0].depends_on")
        expectError(try bulk([.string("not an object")]), 400, "validation_failed", field: "monitors[0]")
        expectError(try bulk([]), 400, "validation_failed", field: "monitors")
        expectError(try bulk(Array(repeating: httpMonitor("g", target.healthURL), count: 1001)), 400, "validation_failed", field: "monitors")
        expectError(try hub.call("POST", "/api/monitors/bulk", json: ["action": "create", "ids": [.int(ids[0])],
                                                                         "monitors": [httpMonitor("h", target.healthURL)]]),
                    400, "validation_failed", field: "ids")
        let read = try hub.hub.token(scope: "read", name: "viewer")
        expectError(try hub.hub.call("POST", "/api/monitors/bulk", token: read,
                                     json: ["action": "create", "monitors": [httpMonitor("i", target.healthURL)]]),
                    403, "insufficient_scope")
        #expect(try count() == before)
    }
}
