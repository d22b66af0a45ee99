import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The monitor REST surface: history, uptime, validation, access, and
/// durability across a kill -9.
@Suite struct MonitoringAPITests {
    @Test(arguments: TestEngine.all) func resultsHistoryFiltersAndPages(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let (id, _) = try hub.createChecked(httpMonitor("history", target.healthURL))
        target.setStatus(503)
        try hub.check(id)
        target.setStatus(200)
        try hub.check(id)
        try hub.check(id)
        let all = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results"))
        let items = all["items"]?.arrayValue ?? []
        #expect(items.count == 4)
        #expect(all["next_cursor"] == .null)
        #expect(items.map { $0["status"]?.stringValue } == ["up", "up", "down", "up"], "newest first")
        #expect(items[2]["status_code"]?.intValue == 503)
        #expect(items.allSatisfy { $0["location"]?.stringValue == "hub" && $0["latency_ms"]?.intValue != nil })
        #expect(items.allSatisfy { Time.parseRFC3339($0["at"]?.stringValue ?? "") != nil })

        // Pages of 3 then 1.
        let page1 = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results?limit=3"))
        #expect(page1["items"]?.arrayValue?.count == 3)
        let cursor = try #require(page1["next_cursor"]?.stringValue)
        let page2 = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results?limit=3&cursor=\(cursor)"))
        #expect(page2["items"]?.arrayValue?.map { $0["id"] } == [items[3]["id"]])
        #expect(page2["next_cursor"] == .null)

        // location and since/until.
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results?location=hub"))["items"]?.arrayValue?.count == 4)
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results?location=eu-west"))["items"]?.arrayValue?.isEmpty == true)
        let future = Time.rfc3339(Time.now() + 3600)
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results?since=\(future)"))["items"]?.arrayValue?.isEmpty == true)
        let past = Time.rfc3339(Time.now() - 3600)
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results?since=\(past)"))["items"]?.arrayValue?.count == 4)
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results?until=\(past)"))["items"]?.arrayValue?.isEmpty == true)
        expectError(try hub.call("GET", "/api/monitors/\(id)/results?since=yesterday"), 400, field: "since")
        expectError(try hub.call("GET", "/api/monitors/999999/results"), 404)
    }

    @Test(arguments: TestEngine.all) func uptimeOver24Hours(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        target.setLatency(ms: 20)
        let hub = try MonitoringHub(engine: engine)
        let (id, _) = try hub.createChecked(httpMonitor("uptime", target.healthURL))
        try hub.check(id)
        try hub.check(id)
        target.setStatus(503)
        try hub.check(id)
        let u = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/uptime?period=24h"))
        #expect(u["period"]?.stringValue == "24h")
        #expect(u["checks"]?.intValue == 4)
        let uptime = try #require(u["uptime"]?.numberValue, "\(u.text)")
        #expect(abs(uptime - 75) < 0.01, "uptime \(uptime)")
        #expect((u["avg_latency_ms"]?.intValue ?? 0) >= 20, "\(u.text)")
        #expect((u["p95_latency_ms"]?.intValue ?? 0) >= 20, "\(u.text)")
        #expect(u["maintenance_seconds"]?.intValue == 0)
        // The default period is 24h; the others answer; 1y does not.
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(id)/uptime"))["period"]?.stringValue == "24h")
        for p in ["7d", "30d", "90d"] {
            #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(id)/uptime?period=\(p)"))["checks"]?.intValue == 4)
        }
        expectError(try hub.call("GET", "/api/monitors/\(id)/uptime?period=1y"), 400, "validation_failed", field: "period")
        expectError(try hub.call("GET", "/api/monitors/999999/uptime"), 404)
    }

    @Test(arguments: TestEngine.all) func validationNamesTheField(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        func refused(_ body: JSON, _ field: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            expectError(try hub.call("POST", "/api/monitors", json: body), 400, "validation_failed", field: field,
                        sourceLocation: sourceLocation)
        }
        try refused(httpMonitor("x", "ftp://example.com/"), "target")
        try refused(httpMonitor("x", "not a url"), "target")
        try refused(monitorBody("x", type: "tcp", target: "127.0.0.1"), "target")
        try refused(monitorBody("x", type: "tcp", target: "127.0.0.1:70000"), "target")
        try refused(monitorBody("x", type: "dns", target: "bad_host!"), "target")
        try refused(httpMonitor("x", "http://127.0.0.1/", [("interval", 5)]), "interval")
        try refused(httpMonitor("x", "http://127.0.0.1/", [("interval", 86_401)]), "interval")
        try refused(httpMonitor("x", "http://127.0.0.1/", [("interval", 10), ("timeout", 20)]), "timeout")
        try refused(httpMonitor("x", "http://127.0.0.1/", [("retries", 11)]), "retries")
        try refused(httpMonitor("x", "http://127.0.0.1/", [("http", ["method": "FETCH"])]), "http.method")
        try refused(httpMonitor("x", "http://127.0.0.1/", [("dns", ["record_type": "A"])]), "dns")
        try refused(monitorBody("x", type: "dns", target: "example.com", [("dns", ["record_type": "SRV"])]), "dns.record_type")
        try refused(monitorBody("x", type: "dns", target: "example.com", [("dns", ["resolver": "dns.google"])]), "dns.resolver")
        try refused(["name": "x", "type": "heartbeat", "heartbeat": ["cron": "61 * * * *"]], "heartbeat.cron")
        try refused(["name": "x", "type": "heartbeat", "heartbeat": ["cron": "0 3 * * *", "timezone": "Mars/Olympus_Mons"]],
                    "heartbeat.timezone")
        try refused(["name": "x", "type": "heartbeat", "heartbeat": ["period": 5]], "heartbeat.period")
        try refused(["name": "x", "type": "heartbeat", "heartbeat": ["period": 60, "grace": 1]], "heartbeat.grace")
        try refused(["name": "x", "type": "icmp"], "type")
        try refused(["name": "x", "type": "ping"], "target")
        try refused(["type": "tcp", "target": "127.0.0.1:22"], "name")
        // A valid cron heartbeat is accepted and shows its schedule.
        let cron = try hub.create(["name": "nightly", "type": "heartbeat",
                                   "heartbeat": ["cron": "0 3 * * *", "timezone": "Europe/Paris", "grace": 600]])
        #expect(cron["heartbeat"]?["cron"]?.stringValue == "0 3 * * *")
        #expect(cron["heartbeat"]?["timezone"]?.stringValue == "Europe/Paris")

        // PATCH: type cannot change; bad values are refused the same way; 404.
        let m = try hub.create(monitorBody("tcp", type: "tcp", target: "127.0.0.1:\(closedPort())"))
        let id = try #require(m["id"]?.intValue)
        expectError(try hub.call("PATCH", "/api/monitors/\(id)", json: ["type": "http"]), 400, field: "type")
        expectError(try hub.call("PATCH", "/api/monitors/\(id)", json: ["interval": 1]), 400, field: "interval")
        let renamed = try expectJSON(try hub.call("PATCH", "/api/monitors/\(id)", json: ["name": "db", "interval": 30]))
        #expect(renamed["name"]?.stringValue == "db")
        #expect(renamed["interval"]?.intValue == 30)
        #expect(renamed["type"]?.stringValue == "tcp")
        for (method, path) in [("GET", ""), ("PATCH", ""), ("DELETE", ""), ("POST", "/check"), ("POST", "/pause"),
                               ("POST", "/resume")] {
            let r = try hub.call(method, "/api/monitors/999999\(path)", json: method == "PATCH" ? ["name": "y"] : nil)
            expectError(r, 404)
        }
        #expect(try hub.call("DELETE", "/api/monitors/\(id)").status == 204)
        expectError(try hub.call("GET", "/api/monitors/\(id)"), 404)
        #expect(try hub.incidents(id).isEmpty)
    }

    @Test(arguments: TestEngine.all) func readTokensReadButCannotWrite(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let read = try hub.hub.token(scope: "read", name: "viewer")
        let m = try hub.create(monitorBody("tcp", type: "tcp", target: "127.0.0.1:\(closedPort())"))
        let id = try #require(m["id"]?.intValue)
        let body = monitorBody("tcp2", type: "tcp", target: "127.0.0.1:22")
        expectError(try hub.hub.call("POST", "/api/monitors", token: read, json: body), 403, "insufficient_scope")
        expectError(try hub.hub.call("POST", "/api/monitors/\(id)/check", token: read), 403, "insufficient_scope")
        expectError(try hub.hub.call("PATCH", "/api/monitors/\(id)", token: read, json: ["name": "z"]), 403)
        expectError(try hub.hub.call("DELETE", "/api/monitors/\(id)", token: read), 403)
        expectError(try hub.hub.call("POST", "/api/maintenance", token: read, json: ["title": "t"]), 403)
        #expect(try hub.hub.call("GET", "/api/monitors/\(id)", token: read).status == 200)
        #expect(try hub.hub.call("GET", "/api/incidents", token: read).status == 200)
        #expect(try hub.hub.call("GET", "/api/maintenance", token: read).status == 200)
        expectError(try hub.hub.call("GET", "/api/monitors"), 401)
        // The list filters.
        let list = try expectJSON(try hub.hub.call("GET", "/api/monitors?type=tcp&q=tcp", token: read))
        #expect(list["items"]?.arrayValue?.map { $0["id"]?.intValue } == [id])
        expectError(try hub.hub.call("GET", "/api/monitors?status=sleeping", token: read), 400, field: "status")
        expectError(try hub.hub.call("GET", "/api/monitors?type=icmp", token: read), 400, field: "type")
    }

    @Test(arguments: TestEngine.all) func monitorsStatusesAndIncidentsSurviveKill9(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let server = try #require(RawServer { _ in })
        defer { server.stop() }
        let hub = try MonitoringHub(engine: engine)
        let web = try hub.createChecked(httpMonitor("web", target.healthURL))
        let db = try hub.createChecked(monitorBody("db", type: "tcp", target: "127.0.0.1:\(server.port)"))
        target.setStatus(503)
        let down = try hub.check(web.id)
        let incidentID = try #require(down["monitor"]?["open_incident_id"]?.intValue)
        let beat = try hub.create(["name": "cron", "type": "heartbeat", "heartbeat": ["period": 3600, "grace": 600]])
        let beatID = try #require(beat["id"]?.intValue)
        let paused = try hub.createChecked(monitorBody("paused", type: "tcp", target: "127.0.0.1:\(server.port)"))
        _ = try expectJSON(try hub.call("POST", "/api/monitors/\(paused.id)/pause"))
        let before = try expectJSON(try hub.call("GET", "/api/monitors"))["items"]?.arrayValue ?? []

        hub.hub.kill9()
        try hub.hub.restart()

        let after = try expectJSON(try hub.call("GET", "/api/monitors"))["items"]?.arrayValue ?? []
        #expect(after.count == 4)
        func summary(_ items: [JSON]) -> [String] {
            items.map { m in
                ["id", "name", "type", "target", "interval", "status", "open_incident_id", "ping_url", "created_at"]
                    .map { m[$0]?.text ?? "-" }.joined(separator: " ")
            }
        }
        #expect(summary(after) == summary(before))
        #expect(try hub.monitor(web.id)["status"]?.stringValue == "down")
        #expect(try hub.monitor(db.id)["status"]?.stringValue == "up")
        #expect(try hub.monitor(paused.id)["status"]?.stringValue == "paused")
        #expect(try hub.monitor(beatID)["status"]?.stringValue == "pending")
        let incident = try hub.incident(incidentID)
        #expect(incident["status"]?.stringValue == "open")
        #expect(incident["cause"]?.stringValue == "HTTP 503")
        #expect(try hub.events(web.id).map(\.kind) == ["monitor_down"])
        // The restarted hub keeps working on the same state: recovery closes it.
        target.setStatus(200)
        #expect(try hub.check(web.id)["monitor"]?["status"]?.stringValue == "up")
        #expect(try hub.incident(incidentID)["status"]?.stringValue == "closed")
        #expect(try hub.events(web.id).map(\.kind) == ["monitor_down", "monitor_up"])
        let pingPath = String((beat["ping_url"]?.stringValue ?? "").drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
        #expect(try hub.hub.connect().request("GET", pingPath).status == 200, "ping keys survive: \(pingPath)")
        #expect(try hub.monitor(beatID)["status"]?.stringValue == "up")
    }
}
