import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// HTTP monitors end to end: a real loopback target whose answer the test
/// flips, checks driven with `POST /api/monitors/{id}/check`, assertions on
/// the REST answers and on the events table.
@Suite struct MonitoringHTTPTests {
    @Test(arguments: TestEngine.all) func flipUpDownUpOpensAndClosesAnIncidentWithEvents(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let (id, first) = try hub.createChecked(httpMonitor("api", target.healthURL))
        #expect(first["status"]?.stringValue == "up")
        #expect(first["last_check"]?["status_code"]?.intValue == 200)
        #expect(first["open_incident_id"] == .null)
        #expect(try hub.events(id).isEmpty, "pending → up sends nothing")

        target.setStatus(503)
        let down = try hub.check(id)
        let result = try #require(down["results"]?.arrayValue?.first)
        #expect(result["status"]?.stringValue == "down")
        #expect(result["status_code"]?.intValue == 503)
        #expect(result["location"]?.stringValue == "hub")
        #expect(down["monitor"]?["status"]?.stringValue == "down")
        let incidentID = try #require(down["monitor"]?["open_incident_id"]?.intValue)
        let open = try hub.incident(incidentID)
        #expect(open["kind"]?.stringValue == "down")
        #expect(open["status"]?.stringValue == "open")
        #expect(open["cause"]?.stringValue == "HTTP 503")
        #expect(open["locations"] == ["hub"])
        #expect(open["monitor_id"]?.intValue == id)
        var events = try hub.events(id)
        #expect(events.map(\.kind) == ["monitor_down"])
        #expect(events.first?.incidentID == incidentID)
        #expect(events.first?.cause == "HTTP 503")
        #expect(events.first?.suppressed == false)
        #expect(try hub.incidents(id, status: "open").map { $0["id"]?.intValue } == [incidentID])

        target.setStatus(200)
        let up = try hub.check(id)
        #expect(up["monitor"]?["status"]?.stringValue == "up")
        #expect(up["monitor"]?["open_incident_id"] == .null)
        let closed = try hub.incident(incidentID)
        #expect(closed["status"]?.stringValue == "closed")
        #expect(closed["closed_at"] != .null)
        let timeline = closed["timeline"]?.arrayValue ?? []
        #expect(timeline.map { $0["event"]?.stringValue } == ["opened", "closed"])
        #expect(timeline.first?["detail"]?.stringValue == "HTTP 503")
        #expect(timeline.last?["detail"]?.stringValue == "recovered")
        events = try hub.events(id)
        #expect(events.map(\.kind) == ["monitor_down", "monitor_up"])
        #expect(events.last?.incidentID == incidentID)
        #expect(events.last?.cause.hasPrefix("recovered after") == true)
        #expect(try hub.incidents(id, status: "open").isEmpty)
        #expect(try hub.incidents(id, status: "closed").count == 1)
    }

    @Test(arguments: TestEngine.all) func firstResultAfterPendingOpensTheIncidentSilently(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        target.setStatus(503)
        let hub = try MonitoringHub(engine: engine)
        let (id, first) = try hub.createChecked(httpMonitor("born down", target.healthURL))
        #expect(first["status"]?.stringValue == "down")
        #expect(first["open_incident_id"] != .null, "the dashboard shows the incident")
        #expect(try hub.events(id).isEmpty, "no event out of pending")
        target.setStatus(200)
        #expect(try hub.check(id)["monitor"]?["status"]?.stringValue == "up")
        #expect(try hub.events(id).map(\.kind) == ["monitor_up"], "its recovery is still announced")
    }

    @Test(arguments: TestEngine.all) func retriesToleratesFailuresBeforeDown(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let (id, _) = try hub.createChecked(httpMonitor("retrying", target.healthURL, retries: 2))
        target.setStatus(503)
        for n in 1...2 {
            let r = try hub.check(id)
            #expect(r["results"]?.arrayValue?.first?["status"]?.stringValue == "down")
            #expect(r["monitor"]?["status"]?.stringValue == "up", "failure \(n) is tolerated")
            #expect(r["monitor"]?["open_incident_id"] == .null)
        }
        #expect(try hub.events(id).isEmpty)
        let third = try hub.check(id)
        #expect(third["monitor"]?["status"]?.stringValue == "down")
        #expect(third["monitor"]?["open_incident_id"] != .null)
        #expect(try hub.events(id).map(\.kind) == ["monitor_down"])
        // One success recovers at once.
        target.setStatus(200)
        #expect(try hub.check(id)["monitor"]?["status"]?.stringValue == "up")
        #expect(try hub.events(id).map(\.kind) == ["monitor_down", "monitor_up"])
    }

    @Test(arguments: TestEngine.all) func slowAnswersMakeItDegraded(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let (id, first) = try hub.createChecked(httpMonitor("slow", target.healthURL, [("degraded_after_ms", 150)]))
        #expect(first["status"]?.stringValue == "up")
        #expect(first["degraded_after_ms"]?.intValue == 150)
        target.setLatency(ms: 400)
        let r = try hub.check(id)
        #expect(r["results"]?.arrayValue?.first?["status"]?.stringValue == "degraded")
        #expect((r["results"]?.arrayValue?.first?["latency_ms"]?.intValue ?? 0) >= 400)
        #expect(r["monitor"]?["status"]?.stringValue == "degraded")
        let incidentID = try #require(r["monitor"]?["open_incident_id"]?.intValue)
        let incident = try hub.incident(incidentID)
        #expect(incident["kind"]?.stringValue == "degraded")
        let cause = incident["cause"]?.stringValue ?? ""
        #expect(cause.hasPrefix("slow: ") && cause.hasSuffix(" ms > 150 ms"), "cause \(cause)")
        let events = try hub.events(id)
        #expect(events.map(\.kind) == ["monitor_degraded"])
        #expect(events.first?.incidentID == incidentID)
        // The stored result says degraded too.
        let results = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results"))["items"]?.arrayValue ?? []
        #expect(results.first?["status"]?.stringValue == "degraded")
        target.setLatency(ms: 0)
        #expect(try hub.check(id)["monitor"]?["status"]?.stringValue == "up")
        #expect(try hub.events(id).map(\.kind) == ["monitor_degraded", "monitor_up"])
        #expect(try hub.incident(incidentID)["status"]?.stringValue == "closed")
    }

    @Test(arguments: TestEngine.all) func keywordPresentAndAbsent(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        target.setBody("status: all systems healthy")
        let hub = try MonitoringHub(engine: engine)
        func kw(_ name: String, _ keyword: String, absent: Bool) throws -> Int64 {
            try hub.createChecked(httpMonitor(name, target.healthURL,
                                              [("http", ["keyword": .string(keyword), "keyword_absent": .bool(absent)])])).id
        }
        let present = try kw("present", "healthy", absent: false)
        let missing = try kw("missing", "unicorn", absent: false)
        let absentOK = try kw("absent ok", "error", absent: true)
        #expect(try hub.monitor(present)["status"]?.stringValue == "up")
        let m = try hub.monitor(missing)
        #expect(m["status"]?.stringValue == "down")
        #expect(m["last_check"]?["error"]?.stringValue == "keyword \"unicorn\" not found")
        #expect(m["last_check"]?["status_code"]?.intValue == 200)
        #expect(try hub.monitor(absentOK)["status"]?.stringValue == "up")
        #expect(try hub.monitor(present)["http"]?["keyword"]?.stringValue == "healthy")

        target.setBody("fatal error: disk full")
        let r = try hub.check(absentOK)
        #expect(r["monitor"]?["status"]?.stringValue == "down")
        #expect(r["results"]?.arrayValue?.first?["error"]?.stringValue == "keyword \"error\" found")
        let incidentID = try #require(r["monitor"]?["open_incident_id"]?.intValue)
        #expect(try hub.incident(incidentID)["cause"]?.stringValue == "keyword \"error\" found")
        #expect(try hub.check(present)["monitor"]?["status"]?.stringValue == "down")
    }

    @Test(arguments: TestEngine.all) func expectedStatusLists(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let settings: JSON = ["expected_status": "200-299,301", "follow_redirects": false]
        let moved = try hub.createChecked(httpMonitor("moved", target.baseURL + "/status/301", [("http", settings)]))
        #expect(moved.monitor["status"]?.stringValue == "up")
        #expect(moved.monitor["last_check"]?["status_code"]?.intValue == 301)
        #expect(moved.monitor["http"]?["expected_status"]?.stringValue == "200-299,301")
        let found = try hub.createChecked(httpMonitor("found", target.baseURL + "/status/302", [("http", settings)]))
        #expect(found.monitor["status"]?.stringValue == "down")
        #expect(found.monitor["last_check"]?["error"]?.stringValue == "HTTP 302")
        let created = try hub.createChecked(httpMonitor("created", target.baseURL + "/status/204", [("http", settings)]))
        #expect(created.monitor["status"]?.stringValue == "up")
        // A 503 inside an explicit list is up.
        let maint = try hub.createChecked(httpMonitor("503 ok", target.baseURL + "/status/503",
                                                      [("http", ["expected_status": "503"])]))
        #expect(maint.monitor["status"]?.stringValue == "up")
        expectError(try hub.call("POST", "/api/monitors", json: httpMonitor("bad", target.healthURL,
                                                                            [("http", ["expected_status": "2xx"])])),
                    400, "validation_failed", field: "http.expected_status")
    }

    @Test(arguments: TestEngine.all) func aRefusedConnectionIsDown(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let (id, m) = try hub.createChecked(httpMonitor("nothing there", "http://127.0.0.1:\(closedPort())/"))
        #expect(m["status"]?.stringValue == "down")
        #expect(m["last_check"]?["status_code"] == .null)
        let error = m["last_check"]?["error"]?.stringValue ?? ""
        #expect(!error.isEmpty)
        #expect(try hub.incident(try #require(m["open_incident_id"]?.intValue))["cause"]?.stringValue == error)
        _ = id
    }

    /// The scheduler, not the test, runs the check: interval 10 s.
    @Test(arguments: TestEngine.all) func theSchedulerChecksOnItsOwn(engine: TestEngine) throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        let (id, first) = try hub.createChecked(httpMonitor("scheduled", target.healthURL, [("interval", 10)]))
        #expect(first["status"]?.stringValue == "up")
        let before = target.requests
        target.setStatus(503)
        let down = try hub.waitForStatus(id, "down", timeoutMillis: 16_000)
        #expect(target.requests > before)
        #expect(down["last_check"]?["status_code"]?.intValue == 503)
        #expect(try hub.events(id).map(\.kind) == ["monitor_down"])
    }
}
