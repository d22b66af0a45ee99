import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Dependencies through the running binary (SPEC §12): a child whose parent
/// is down sends nothing; a child still down after its parent recovered
/// alerts then.
@Suite struct MonitorDependencyE2ETests {
    func waitUntil(_ what: String, timeoutMillis: Int = 15_000, _ done: () -> Bool) {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
            usleep(50_000)
        }
    }

    /// (event, monitor id) of every webhook received.
    func alerts(_ r: RecordingHTTPReceiver) -> [String] {
        r.received.compactMap { got in
            guard let body = try? JSON.parse(got.body), let event = body["event"]?.stringValue,
                  let id = body["monitor"]?["id"]?.intValue else { return nil }
            return "\(event) \(id)"
        }
    }

    func setUp(_ engine: TestEngine) throws -> (MonitoringHub, RecordingHTTPReceiver) {
        let receiver = try RecordingHTTPReceiver()
        let hub = try MonitoringHub(engine: engine)
        _ = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "ops hook", "type": "webhook", "events": ["monitor_down", "monitor_up"],
            "config": ["url": .string(receiver.baseURL + "/hook")],
        ]), 201)
        return (hub, receiver)
    }

    @Test(arguments: TestEngine.all) func childOfADownParentNeverAlerts(engine: TestEngine) throws {
        let (hub, receiver) = try setUp(engine)
        let target = try SwitchableHTTPTarget()
        let (parent, _) = try hub.createChecked(httpMonitor("router", target.healthURL))
        let (child, shown) = try hub.createChecked(httpMonitor("api", target.healthURL, [("depends_on", [.int(parent)])]))
        #expect(shown["depends_on"] == [.int(parent)])

        target.setStatus(503)
        try hub.check(child)
        try hub.check(parent)
        waitUntil("the parent's alert") { alerts(receiver) == ["monitor_down \(parent)"] }
        let incident = try #require(try hub.incidents(child, status: "open").first)
        let id = try #require(incident["id"]?.intValue)
        let full = try hub.incident(id)
        #expect(full["suppressed_by"] == .int(parent))
        #expect(full["timeline"]?.arrayValue?.contains { $0["event"] == "suppressed" } == true)

        target.setStatus(200)
        try hub.check(parent)
        try hub.check(child)
        waitUntil("the parent's recovery") { alerts(receiver).count == 2 }
        usleep(1_500_000)
        #expect(alerts(receiver) == ["monitor_down \(parent)", "monitor_up \(parent)"])
    }

    @Test(arguments: TestEngine.all) func childStillDownAfterItsParentRecoveredAlertsThen(engine: TestEngine) throws {
        let (hub, receiver) = try setUp(engine)
        let upstream = try SwitchableHTTPTarget()
        let service = try SwitchableHTTPTarget()
        let (parent, _) = try hub.createChecked(httpMonitor("router", upstream.healthURL))
        let (child, _) = try hub.createChecked(httpMonitor("api", service.healthURL, [("depends_on", [.int(parent)])]))

        upstream.setStatus(503)
        service.setStatus(503)
        try hub.check(child)
        try hub.check(parent)
        waitUntil("the parent's alert") { alerts(receiver) == ["monitor_down \(parent)"] }

        upstream.setStatus(200)
        try hub.check(parent)
        waitUntil("the parent's recovery") { alerts(receiver).count == 2 }
        try hub.check(child)
        waitUntil("the child's alert") { alerts(receiver).count == 3 }
        #expect(alerts(receiver) == ["monitor_down \(parent)", "monitor_up \(parent)", "monitor_down \(child)"])
        let incident = try #require(try hub.incidents(child, status: "open").first)
        #expect(incident["suppressed_by"] == .null)
    }

    @Test(arguments: [TestEngine.sqlite]) func dependsOnIsValidated(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let (a, _) = try hub.createChecked(httpMonitor("a", "http://127.0.0.1:9/"))
        let (b, _) = try hub.createChecked(httpMonitor("b", "http://127.0.0.1:9/", [("depends_on", [.int(a)])]))
        expectError(try hub.call("POST", "/api/monitors", json: httpMonitor("c", "http://127.0.0.1:9/", [("depends_on", [9999])])),
                    400, field: "depends_on")
        expectError(try hub.call("PATCH", "/api/monitors/\(a)", json: ["depends_on": [.int(b)]]), 400, field: "depends_on")
        expectError(try hub.call("PATCH", "/api/monitors/\(a)", json: ["depends_on": [.int(a)]]), 400, field: "depends_on")
        // Another field's PATCH keeps the stored parents; [] removes them.
        let renamed = try expectJSON(try hub.call("PATCH", "/api/monitors/\(b)", json: ["name": "b2"]))
        #expect(renamed["depends_on"] == [.int(a)])
        let cleared = try expectJSON(try hub.call("PATCH", "/api/monitors/\(b)", json: ["depends_on": []]))
        #expect(cleared["depends_on"] == [])
    }

    /// Deleting the parent that suppressed a child still down sends the
    /// child's alert then: nothing stays silenced by a monitor that is gone.
    @Test(arguments: TestEngine.all) func deletingTheSuppressingParentAlertsForTheChild(engine: TestEngine) throws {
        let (hub, receiver) = try setUp(engine)
        let target = try SwitchableHTTPTarget()
        let (parent, _) = try hub.createChecked(httpMonitor("router", target.healthURL))
        let (child, _) = try hub.createChecked(httpMonitor("api", target.healthURL, [("depends_on", [.int(parent)])]))
        target.setStatus(503)
        try hub.check(child)
        try hub.check(parent)
        waitUntil("the parent's alert") { alerts(receiver) == ["monitor_down \(parent)"] }
        #expect(try hub.incidents(child, status: "open").first?["suppressed_by"] == .int(parent))

        #expect(try hub.call("DELETE", "/api/monitors/\(parent)").status == 204)
        waitUntil("the child's alert") { alerts(receiver).count == 2 }
        #expect(alerts(receiver) == ["monitor_down \(parent)", "monitor_down \(child)"])
        let incident = try #require(try hub.incidents(child, status: "open").first)
        #expect(incident["suppressed_by"] == .null)
    }
}
