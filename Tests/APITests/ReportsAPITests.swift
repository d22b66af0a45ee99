import Core
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `GET /api/monitors/{id}/pings`, `GET /api/monitors/{id}/sla` and
/// `GET /api/reports/sla` (SPEC §13) through HTTP on the running binary.
@Suite struct ReportsAPITests {
    func ping(_ hub: MonitoringHub, _ path: String, agent: String? = nil, body: String? = nil) throws {
        let headers = agent.map { [("User-Agent", $0)] } ?? []
        let r = try hub.hub.connect().request(body == nil ? "GET" : "POST", path, headers: headers, body: body.map { Array($0.utf8) })
        #expect(r.status == 200, "\(path): \(r.text)")
    }

    @Test(arguments: TestEngine.all) func thePingLogListsKeptPingsNewestFirst(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let m = try hub.create(["name": "backup", "type": "heartbeat", "heartbeat": ["period": 3600, "grace": 60]])
        let id = try #require(m["id"]?.intValue)
        let url = try #require(m["ping_url"]?.stringValue)
        let path = String(url.dropFirst("http://127.0.0.1:\(hub.hub.port)".count))

        try ping(hub, path + "/start", agent: "cron/1.0")
        usleep(30_000)
        try ping(hub, path, agent: "curl/8.5.0", body: "backup done: 42 files\n")
        try ping(hub, path + "/fail")
        try ping(hub, path + "/0")
        try ping(hub, path + "/start")
        try ping(hub, path + "/3", agent: String(repeating: "u", count: 600))

        let page = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/pings"))
        let items = try #require(page["items"]?.arrayValue)
        #expect(page["next_cursor"] == .null)
        #expect(items.map { $0["kind"]?.stringValue ?? "?" } == ["exit", "start", "exit", "fail", "success", "start"])
        #expect(items.map { $0["exit_code"]?.intValue } == [3, nil, 0, nil, nil, nil])
        let ids = items.compactMap { $0["id"]?.intValue }
        #expect(ids == ids.sorted(by: >) && ids.count == 6)
        // Durations follow a start only.
        #expect(items[0]["duration_ms"]?.intValue != nil)
        #expect(items[1]["duration_ms"] == .null && items[2]["duration_ms"] == .null && items[3]["duration_ms"] == .null)
        #expect((items[4]["duration_ms"]?.intValue ?? -1) >= 30, "success after the start: \(items[4].text)")
        #expect(items[4]["body"]?.stringValue == "backup done: 42 files\n")
        #expect(items[4]["user_agent"]?.stringValue == "curl/8.5.0")
        #expect(items[5]["user_agent"]?.stringValue == "cron/1.0" && items[5]["body"] == .null)
        #expect(items[3]["user_agent"] == .null)
        #expect(items.allSatisfy { $0["source_ip"]?.stringValue == "127.0.0.1" && $0["at"]?.stringValue.flatMap(Time.parseRFC3339) != nil })
        #expect((items[0]["user_agent"]?.stringValue?.utf8.count ?? 0) <= 512, "the User-Agent is cut to 512 bytes")

        // Pages of two, continuing with the cursor, end with null.
        var seen: [Int64] = []
        var cursor: String? = nil
        repeat {
            let q = "/api/monitors/\(id)/pings?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let p = try expectJSON(try hub.call("GET", q))
            seen += p["items"]?.arrayValue?.compactMap { $0["id"]?.intValue } ?? []
            cursor = p["next_cursor"]?.stringValue
        } while cursor != nil && seen.count < 20
        #expect(seen == ids)

        let tcp = try hub.create(httpMonitor("web", "http://127.0.0.1:9/"))
        expectError(try hub.call("GET", "/api/monitors/\(try #require(tcp["id"]?.intValue))/pings"), 404)
        expectError(try hub.call("GET", "/api/monitors/999999/pings"), 404)
        expectError(try hub.call("GET", "/api/monitors/\(id)/pings?limit=0"), 400, field: "limit")
    }

    @Test(arguments: TestEngine.all) func slaEndpointsValidateAndAnswerJSONAndCSV(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let (id, _) = try hub.createChecked(httpMonitor("Edge, \"EU\"", target.healthURL, [("tags", ["prod"])]))
        let (otherID, _) = try hub.createChecked(httpMonitor("Other", target.healthURL))
        target.setStatus(503)
        try hub.check(id)
        try hub.waitForStatus(id, "down")
        usleep(1_100_000)
        target.setStatus(200)
        try hub.check(id)
        try hub.waitForStatus(id, "up")
        usleep(1_100_000)   // some up time after the outage, in whole seconds

        let now = Time.now()
        let from = Time.rfc3339(now - 3600), to = Time.rfc3339(now + 60)
        let one = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/sla?from=\(from)&to=\(to)"))
        #expect(one["from"]?.stringValue == from && one["to"]?.stringValue == to)
        #expect(one["incidents"]?.intValue == 1)
        #expect((one["downtime_seconds"]?.intValue ?? 0) >= 1)
        #expect((one["mttr_seconds"]?.intValue ?? 0) >= 1)
        #expect(one["checks"]?.intValue == 3)
        #expect(one["maintenance_seconds"]?.intValue == 0)
        let uptime = try #require(one["uptime"]?.numberValue)
        #expect(uptime > 0 && uptime < 100)

        let report = try expectJSON(try hub.call("GET", "/api/reports/sla?from=\(from)&to=\(to)"))
        let items = try #require(report["items"]?.arrayValue)
        #expect(items.compactMap { $0["monitor_id"]?.intValue } == [id, otherID])
        #expect(items.first?["name"]?.stringValue == "Edge, \"EU\"")
        #expect(items.last?["uptime"]?.numberValue == 100 && items.last?["mttr_seconds"] == .null)
        let tagged = try expectJSON(try hub.call("GET", "/api/reports/sla?from=\(from)&to=\(to)&tag=PROD"))
        #expect(tagged["items"]?.arrayValue?.compactMap { $0["monitor_id"]?.intValue } == [id])

        let csv = try hub.hub.call("GET", "/api/reports/sla?from=\(from)&to=\(to)", token: hub.token, headers: [("Accept", "text/csv")])
        #expect(csv.status == 200)
        #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
        let lines = csv.text.split(separator: "\r\n").map(String.init)
        #expect(lines.first == "monitor_id,name,uptime,downtime_seconds,maintenance_seconds,incidents,mttr_seconds,checks")
        #expect(lines.count == 3)
        #expect(lines.dropFirst().first?.hasPrefix("\(id),\"Edge, \"\"EU\"\"\",") == true, "\(csv.text)")
        #expect(lines.last == "\(otherID),Other,100,0,0,0,,\(items.last?["checks"]?.intValue ?? -1)")

        // Validation: both times required, RFC 3339, to after from, ≤ 400 days.
        expectError(try hub.call("GET", "/api/monitors/\(id)/sla?to=\(to)"), 400, field: "from")
        expectError(try hub.call("GET", "/api/monitors/\(id)/sla?from=\(from)"), 400, field: "to")
        expectError(try hub.call("GET", "/api/reports/sla?from=yesterday&to=\(to)"), 400, field: "from")
        expectError(try hub.call("GET", "/api/reports/sla?from=\(to)&to=\(from)"), 400, field: "to")
        let long = Time.rfc3339(now - 401 * 86_400)
        expectError(try hub.call("GET", "/api/reports/sla?from=\(long)&to=\(Time.rfc3339(now))"), 400, field: "to")
        _ = try expectJSON(try hub.call("GET", "/api/reports/sla?from=\(Time.rfc3339(now - 400 * 86_400))&to=\(Time.rfc3339(now))"))
        expectError(try hub.call("GET", "/api/monitors/999999/sla?from=\(from)&to=\(to)"), 404)
    }
}
