import Core
import Testing
import TestSupport

/// Tags through the running binary (SPEC §12): the `?tag=` filter, bulk
/// actions, and maintenance windows and status pages that name tags.
@Suite struct TagsAPITests {
    private func ids(_ hub: MonitoringHub, _ query: String) throws -> [Int64] {
        try expectJSON(try hub.call("GET", "/api/monitors" + query))["items"]?.arrayValue?.compactMap { $0["id"]?.intValue } ?? []
    }

    @Test(arguments: TestEngine.all) func tagsAreNormalizedAndFilterByEveryGivenTag(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let a = try hub.create(httpMonitor("a", target.healthURL, [("tags", ["Prod", "EU", "prod"])]))
        #expect(a["tags"] == ["eu", "prod"], "lowercase, sorted, each once")
        let aID = try #require(a["id"]?.intValue)
        let bID = try #require(try hub.create(httpMonitor("b", target.healthURL, [("tags", ["prod"])]))["id"]?.intValue)
        let cID = try #require(try hub.create(httpMonitor("c", target.healthURL, [("tags", ["eu"])]))["id"]?.intValue)
        _ = try hub.create(httpMonitor("untagged", target.healthURL))

        #expect(try ids(hub, "?tag=prod") == [aID, bID])
        #expect(try ids(hub, "?tag=PROD&tag=eu") == [aID], "every given tag, any case")
        #expect(try ids(hub, "?tag=eu") == [aID, cID])
        #expect(try ids(hub, "?tag=eu&tag=nope") == [])

        // A PATCH replaces the tags, and the filter follows.
        _ = try expectJSON(try hub.call("PATCH", "/api/monitors/\(cID)", json: ["tags": ["prod", "eu"]]))
        #expect(try ids(hub, "?tag=prod&tag=eu") == [aID, cID])
        #expect(try hub.monitor(bID)["tags"] == ["prod"])

        expectError(try hub.call("GET", "/api/monitors?tag=has%20space"), 400, "validation_failed", field: "tag")
        expectError(try hub.call("POST", "/api/monitors", json: httpMonitor("x", target.healthURL, [("tags", ["ok", "no/slash"])])),
                    400, "validation_failed", field: "tags[1]")
        expectError(try hub.call("POST", "/api/monitors", json: httpMonitor("x", target.healthURL,
                                                                            [("tags", .array((0..<21).map { .string("t\($0)") }))])),
                    400, "validation_failed", field: "tags")
        expectError(try hub.call("PATCH", "/api/monitors/\(aID)", json: ["tags": [.string(String(repeating: "a", count: 41))]]),
                    400, "validation_failed", field: "tags[0]")
    }

    @Test(arguments: TestEngine.all) func bulkActionsByIDsAndByTag(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let a = try hub.createChecked(httpMonitor("a", target.healthURL, [("tags", ["web"])])).id
        let b = try hub.createChecked(httpMonitor("b", target.healthURL, [("tags", ["WEB", "eu"])])).id
        let c = try hub.createChecked(httpMonitor("c", target.healthURL)).id

        func bulk(_ body: JSON) throws -> [Int64] {
            try expectJSON(try hub.call("POST", "/api/monitors/bulk", json: body))["affected"]?.arrayValue?.compactMap(\.intValue) ?? []
        }
        #expect(try bulk(["action": "pause", "ids": [.int(c), .int(a)]]) == [a, c])
        #expect(try [a, b, c].map { try hub.monitor($0)["status"]?.stringValue } == ["paused", "up", "paused"])
        #expect(try bulk(["action": "resume", "tag": "Web"]) == [a, b])
        #expect(try hub.monitor(a)["paused"] == .bool(false) && hub.monitor(c)["paused"] == .bool(true))
        #expect(try bulk(["action": "pause", "tag": "nobody"]) == [])

        // One window naming every matched monitor.
        let before = try expectJSON(try hub.call("GET", "/api/maintenance"))["items"]?.arrayValue?.count ?? -1
        #expect(try bulk(["action": "mute", "tag": "web", "minutes": 15]) == [a, b])
        let windows = try expectJSON(try hub.call("GET", "/api/maintenance"))["items"]?.arrayValue ?? []
        #expect(windows.count == before + 1)
        let window = try #require(windows.first)
        #expect(window["monitor_ids"] == [.int(a), .int(b)])
        let starts = Time.parseRFC3339(window["starts_at"]?.stringValue ?? "") ?? 0
        let ends = Time.parseRFC3339(window["ends_at"]?.stringValue ?? "") ?? 0
        #expect(ends - starts == 15 * 60)
        #expect(try hub.monitor(a)["in_maintenance"] == .bool(true) && hub.monitor(c)["in_maintenance"] == .bool(false))
        #expect(try bulk(["action": "mute", "ids": [.int(c)]]) == [c])
        #expect(try hub.monitor(c)["in_maintenance"] == .bool(true))

        // Refusals change nothing.
        let read = try hub.hub.token(scope: "read", name: "viewer")
        expectError(try hub.hub.call("POST", "/api/monitors/bulk", token: read, json: ["action": "delete", "tag": "web"]),
                    403, "insufficient_scope")
        #expect(try hub.hub.call("GET", "/api/monitors?tag=web", token: read).status == 200)
        expectError(try hub.call("POST", "/api/monitors/bulk", json: ["action": "delete", "ids": [.int(a), 999_999]]),
                    400, "validation_failed", field: "ids")
        #expect(try hub.call("GET", "/api/monitors/\(a)").status == 200, "all or nothing")
        expectError(try hub.call("POST", "/api/monitors/bulk", json: ["action": "pause", "ids": [.int(a)], "tag": "web"]),
                    400, "validation_failed", field: "ids")
        expectError(try hub.call("POST", "/api/monitors/bulk", json: ["action": "pause"]), 400, "validation_failed", field: "ids")
        expectError(try hub.call("POST", "/api/monitors/bulk", json: ["action": "pause", "ids": []]), 400, "validation_failed", field: "ids")
        expectError(try hub.call("POST", "/api/monitors/bulk", json: ["action": "explode", "tag": "web"]),
                    400, "validation_failed", field: "action")
        expectError(try hub.call("POST", "/api/monitors/bulk", json: ["action": "mute", "tag": "web", "minutes": 0]),
                    400, "validation_failed", field: "minutes")
        expectError(try hub.call("POST", "/api/monitors/bulk", json: ["action": "mute", "tag": "bad tag"]),
                    400, "validation_failed", field: "tag")

        #expect(try bulk(["action": "delete", "tag": "eu"]) == [b])
        #expect(try bulk(["action": "delete", "ids": [.int(a), .int(c)]]) == [a, c])
        #expect(try ids(hub, "") == [])
    }

    @Test(arguments: TestEngine.all) func aWindowByTagSilencesAMonitorTaggedLater(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let other = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let (id, _) = try hub.createChecked(httpMonitor("db", target.healthURL))
        let outside = try hub.createChecked(httpMonitor("web", other.healthURL)).id
        let now = Time.now()
        let window = try expectJSON(try hub.call("POST", "/api/maintenance", json: [
            "title": "db upgrade", "monitor_ids": [], "tags": ["DB"],
            "starts_at": .string(Time.rfc3339(now - 60)), "ends_at": .string(Time.rfc3339(now + 3600)),
        ]), 201)
        #expect(window["tags"] == ["db"] && window["monitor_ids"] == [])
        #expect(try hub.monitor(id)["in_maintenance"] == .bool(false), "not tagged yet")
        #expect(try hub.monitor(outside)["in_maintenance"] == .bool(false), "[] with tags is not every monitor")

        _ = try expectJSON(try hub.call("PATCH", "/api/monitors/\(id)", json: ["tags": ["db"]]))
        #expect(try hub.monitor(id)["in_maintenance"] == .bool(true))
        target.setStatus(503)
        #expect(try hub.check(id)["monitor"]?["status"]?.stringValue == "down")
        let events = try hub.events(id)
        #expect(events.map(\.kind) == ["monitor_down"])
        #expect(events.first?.suppressed == true)
        // An untagged monitor's outage alerts as usual.
        other.setStatus(503)
        try hub.check(outside)
        #expect(try hub.events(outside).map(\.suppressed) == [false])
        expectError(try hub.call("POST", "/api/maintenance", json: [
            "title": "x", "tags": ["a b"], "starts_at": .string(Time.rfc3339(now)), "ends_at": .string(Time.rfc3339(now + 60)),
        ]), 400, "validation_failed", field: "tags[0]")
    }

    @Test(arguments: TestEngine.all) func aStatusPageByTagListsTaggedMonitors(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        // Built every request: a page kept 10 s would list "Docs" only then.
        let hub = try MonitoringHub(environment: ["PINGTXT_STATUS_PAGES_CACHE_SECONDS": "0"], engine: engine)
        let api = try hub.createChecked(httpMonitor("Public API", target.healthURL)).id
        _ = try hub.createChecked(httpMonitor("Website", target.healthURL, [("tags", ["public"])]))
        _ = try hub.createChecked(httpMonitor("Secret billing DB", target.healthURL, [("tags", ["internal"])]))
        let page = try expectJSON(try hub.call("POST", "/api/status-pages", json: [
            "slug": "acme", "title": "Acme status", "monitor_ids": [.int(api)], "tags": ["Public"],
        ]), 201)
        #expect(page["tags"] == ["public"])
        func names() throws -> [String] {
            let r = try hub.hub.call("GET", "/status/acme.json")
            try #require(r.status == 200, "status \(r.status): \(r.text)")
            return try r.json()["monitors"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        }
        #expect(try names() == ["Public API", "Website"], "monitor_ids first, then the tagged ones")
        // Tagged after the page was saved: listed from then on.
        _ = try hub.createChecked(httpMonitor("Docs", target.healthURL, [("tags", ["public"])]))
        #expect(try names() == ["Public API", "Website", "Docs"])
        expectError(try hub.call("POST", "/api/status-pages", json: ["slug": "b", "title": "B", "tags": "public"]),
                    400, "validation_failed", field: "tags")
    }
}
