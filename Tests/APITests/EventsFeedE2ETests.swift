import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `GET /api/events` (SPEC §10) through the binary: what a webhook was told
/// (its `event_id`, `priority` and `url`) is what the feed lists, the feed
/// survives a restart, and `?after=` returns only what came since.
@Suite struct EventsFeedE2ETests {
    let webhooks = NotifyWebhookTests()

    func feed(_ hub: MonitoringHub, _ query: String = "") throws -> JSON {
        try expectJSON(try hub.call("GET", "/api/events" + query))
    }

    @Test(arguments: TestEngine.all) func webhookBodiesAndTheFeedAgreeAcrossARestart(engine: TestEngine) throws {
        let receiver = try RecordingHTTPReceiver()
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        _ = try webhooks.webhook(hub, receiver.baseURL + "/hook")
        let (id, _) = try hub.createChecked(httpMonitor("API", target.healthURL, [("priority", 7)]))
        #expect(try feed(hub) == ["items": [], "next_cursor": .null], "the first result after pending raises nothing")

        target.setStatus(503)
        try hub.check(id)
        target.setStatus(200)
        try hub.check(id)
        // 30 s: once, in a full suite run on PostgreSQL, 15 s passed with neither
        // delivered (cause not found; it passes alone, see the stop note).
        webhooks.waitUntil("down and up", timeoutMillis: 30_000) { receiver.received.count == 2 }
        let bodies = try receiver.received.map { try JSON.parse($0.body) }
        let items = try #require(try feed(hub)["items"]?.arrayValue)
        #expect(items.count == 2)
        let hubURL = "http://127.0.0.1:\(hub.hub.port)"
        for (body, item) in zip(bodies, items) {
            #expect(body["event_id"] == item["id"] && body["event"] == item["event"])
            #expect(body["priority"] == item["priority"] && body["url"] == item["url"])
        }
        let down = items[0]
        let incident = try #require(down["incident_id"]?.intValue)
        #expect(down["event"] == "monitor_down" && down["monitor_id"]?.intValue == id && down["agent"] == .null)
        #expect(down["priority"] == 7 && down["silenced"] == false && down["title"] == "API is down")
        #expect(down["body"]?.stringValue?.hasPrefix("HTTP 503 from hub") == true)
        #expect(down["url"]?.stringValue == "\(hubURL)/incidents/\(incident)")
        #expect(down["at"]?.stringValue.flatMap(Time.parseRFC3339) != nil)
        #expect(items[1]["event"] == "monitor_up" && items[1]["priority"] == 4 && items[1]["incident_id"]?.intValue == incident)
        let lastSeen = try #require(items[1]["id"]?.intValue)

        // What the app saw survives a restart; after it, only what is new.
        try hub.hub.restart()
        #expect(try feed(hub, "?after=\(lastSeen)")["items"] == [])
        target.setStatus(503)
        try hub.check(id)
        let fresh = try #require(try feed(hub, "?after=\(lastSeen)")["items"]?.arrayValue)
        #expect(fresh.count == 1 && fresh.first?["event"] == "monitor_down")
        #expect((fresh.first?["id"]?.intValue ?? 0) > lastSeen)
        #expect(try feed(hub)["items"]?.arrayValue?.count == 3)
        webhooks.waitUntil("the third webhook", timeoutMillis: 30_000) { receiver.received.count == 3 }
        #expect(try JSON.parse(try #require(receiver.received.last).body)["event_id"] == fresh.first?["id"])

        // Pages: oldest first, next_cursor continues the walk.
        let first = try feed(hub, "?limit=2")
        #expect(first["items"]?.arrayValue?.compactMap { $0["id"]?.intValue } == items.compactMap { $0["id"]?.intValue })
        let cursor = try #require(first["next_cursor"]?.stringValue)
        let second = try feed(hub, "?limit=2&cursor=\(cursor)")
        #expect(second["items"]?.arrayValue?.first?["id"] == fresh.first?["id"] && second["next_cursor"] == .null)
    }

    @Test func badParametersAndAccess() throws {
        let hub = try MonitoringHub()
        for (query, field) in [("?limit=0", "limit"), ("?limit=501", "limit"), ("?limit=x", "limit"), ("?after=-1", "after"),
                               ("?after=abc", "after"), ("?cursor=nope", "cursor")] {
            expectError(try hub.call("GET", "/api/events" + query), 400, "validation_failed", field: field)
        }
        expectError(try hub.hub.call("GET", "/api/events"), 401, "unauthorized")
        // Read scope is enough.
        _ = try expectJSON(try hub.hub.call("GET", "/api/events", token: try hub.hub.token(scope: "read")))
    }
}
