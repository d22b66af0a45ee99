import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Escalation with two hubs on one PostgreSQL database (SPEC §14: steps are
/// claimed once). Both hubs run the escalation job; step 2 reaches the
/// webhook once, at its time, and still does when the hub that sent step 1
/// is killed in between.
@Suite(.enabled(if: TestEngine.all.contains(.postgres))) struct EscalationClusterE2ETests {
    @Test(arguments: [false, true]) func stepTwoIsSentOnceByTwoHubs(killFirstHub: Bool) throws {
        let pair = try ClusterE2ETests.Pair()
        let receiver = try RecordingHTTPReceiver()
        let target = try SwitchableHTTPTarget()
        func channel(_ name: String) throws -> Int64 {
            try #require(try expectJSON(try pair.a.call("POST", "/api/channels", token: pair.token, json: [
                "name": .string(name), "type": "webhook", "events": [], "config": ["url": .string(receiver.baseURL + "/" + name)],
            ]), 201)["id"]?.intValue)
        }
        let (first, second) = (try channel("first"), try channel("second"))
        let policy = try #require(try expectJSON(try pair.a.call("POST", "/api/escalation-policies", token: pair.token, json: [
            "name": "Ops", "steps": [["channel_ids": [.int(first)], "delay_minutes": 1], ["channel_ids": [.int(second)], "delay_minutes": 1]],
        ]), 201)["id"]?.intValue)
        let monitor = try expectJSON(try pair.a.call("POST", "/api/monitors", token: pair.token, json: [
            "name": "API", "type": "http", "target": .string(target.healthURL), "interval": 3600, "timeout": 5, "retries": 0,
            "escalation_policy_id": .int(policy),
        ]), 201)
        let id = try #require(monitor["id"]?.intValue)
        usleep(4_000_000)  // the second hub loads the monitor at its next beat
        // Up first (whichever hub owns it may not have checked it yet): a
        // first result after pending would open the incident without an alert.
        _ = try expectJSON(try pair.a.call("POST", "/api/monitors/\(id)/check", token: pair.token))
        target.setStatus(503)
        _ = try expectJSON(try pair.a.call("POST", "/api/monitors/\(id)/check", token: pair.token))
        let incident = try #require(try expectJSON(try pair.b.call("GET", "/api/incidents?monitor_id=\(id)&status=open",
                                                                   token: pair.token))["items"]?.arrayValue?.first)
        let nextAt = try #require(incident["escalation"]?["next_at"]?.stringValue.flatMap(Time.parseRFC3339))
        func count(_ path: String) -> Int { receiver.received.filter { $0.path == path }.count }
        try Pages.waitUntil("step 1 delivered") {
            let channels = try expectJSON(try pair.b.call("GET", "/api/channels", token: pair.token))
            return count("/first") == 1 && channels["items"]?.arrayValue?.allSatisfy { $0["delivery"]?["pending"] == 0 } == true
        }
        if killFirstHub { pair.a.kill9() }

        var arrived: Int64?
        Pages.waitUntil("step 2", timeoutMillis: 100_000) {
            if count("/second") > 0 { arrived = Time.nowMillis() }
            return arrived != nil
        }
        let at = try #require(arrived)
        #expect(at >= nextAt * 1000 - 100 && at <= nextAt * 1000 + 5_000, "step 2 at its time: \(at - nextAt * 1000) ms")
        usleep(5_000_000)
        #expect(count("/second") == 1, "step 2 once")
        #expect(count("/first") == 1, "step 1 once")
        let timeline = try expectJSON(try pair.b.call("GET", "/api/incidents/\(try #require(incident["id"]?.intValue))", token: pair.token))
        #expect(timeline["timeline"]?.arrayValue?.filter { $0["event"] == "escalated" }.count == 2)
    }
}
