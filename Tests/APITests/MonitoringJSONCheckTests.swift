import Core
import Testing
import TestSupport

/// JSON checks end to end (SPEC §12): the binary checks a loopback target
/// whose JSON body the test changes, through `POST /api/monitors/{id}/check`.
@Suite struct MonitoringJSONCheckTests {
    @Test func assertionsTakeTheMonitorDownWithTheCauseAndBackUp() throws {
        let target = try SwitchableHTTPTarget()
        target.setBody(#"{"status": "ok", "db": {"latency_ms": 12}, "regions": ["eu", "us"]}"#)
        let hub = try MonitoringHub()
        let json: JSON = [["path": "$.status", "op": "==", "value": "ok"],
                          ["path": "$.db.latency_ms", "op": "<", "value": 100],
                          ["path": "$.regions", "op": "contains", "value": "eu"],
                          ["path": "$.error", "op": "not_exists"]]
        let (id, first) = try hub.createChecked(httpMonitor("json api", target.healthURL, [("http", ["json": json])]))
        #expect(first["status"]?.stringValue == "up", "\(first["last_check"] ?? .null)")
        #expect(first["http"]?["json"]?.arrayValue?.count == 4)
        #expect(first["http"]?["json"]?.arrayValue?.last == ["path": "$.error", "op": "not_exists", "value": .null])

        target.setBody(#"{"status": "degraded", "db": {"latency_ms": 12}, "regions": ["eu"]}"#)
        let down = try hub.check(id)
        let result = try #require(down["results"]?.arrayValue?.first)
        #expect(result["status"]?.stringValue == "down")
        #expect(result["status_code"]?.intValue == 200)
        #expect(result["error"]?.stringValue == #"$.status is "degraded", expected == "ok""#)
        let incidentID = try #require(down["monitor"]?["open_incident_id"]?.intValue)
        #expect(try hub.incident(incidentID)["cause"]?.stringValue == #"$.status is "degraded", expected == "ok""#)

        target.setBody("<html>maintenance</html>")
        let notJSON = try hub.check(id)
        let cause = notJSON["results"]?.arrayValue?.first?["error"]?.stringValue ?? ""
        #expect(cause.hasPrefix("body is not JSON (invalid JSON at byte 0"), "\(cause)")

        target.setBody(#"{"status": "ok", "db": {"latency_ms": 12}, "regions": ["eu"]}"#)
        let up = try hub.check(id)
        #expect(up["monitor"]?["status"]?.stringValue == "up")
        #expect(try hub.incident(incidentID)["status"]?.stringValue == "closed")

        // A PATCH replaces the list as a whole.
        let patched = try expectJSON(try hub.call("PATCH", "/api/monitors/\(id)",
                                                  json: ["http": ["json": [["path": "$.regions[1]", "op": "exists"]]]]))
        #expect(patched["http"]?["json"] == [["path": "$.regions[1]", "op": "exists", "value": .null]])
        #expect(try hub.check(id)["results"]?.arrayValue?.first?["error"]?.stringValue == "$.regions[1] is missing, expected exists")
    }

    @Test func invalidAssertionsAreRefusedWithTheirField() throws {
        let hub = try MonitoringHub()
        let cases: [(JSON, String)] = [
            ([["path": "status", "op": "==", "value": "ok"]], "http.json[0].path"),
            ([["path": "$.a", "op": "exists"], ["path": "$.b", "op": "matches", "value": "x"]], "http.json[1].op"),
            ([["path": "$.a", "op": ">"]], "http.json[0].value"),
            (["path": "$.a"], "http.json"),
        ]
        for (json, field) in cases {
            expectError(try hub.call("POST", "/api/monitors", json: httpMonitor("bad", "http://127.0.0.1:9/", [("http", ["json": json])])),
                        400, "validation_failed", field: field)
        }
        expectError(try hub.call("POST", "/api/monitors", json: monitorBody("tcp", type: "tcp", target: "127.0.0.1:9",
                                                                            [("http", ["json": []])])),
                    400, "validation_failed", field: "http")
    }
}
