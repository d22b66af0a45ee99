import Auth
import Core
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Phones end to end through the running binary and a fake relay that is a
/// real loopback server: alerts with hub_id, nothing during maintenance, the
/// Live Activity start → update → end, and a fault test (relay 503 while the
/// hub is killed with SIGKILL and restarted: every alert arrives once).
@Suite struct PushE2ETests {
    let mobile = MobileAPITests()

    final class Setup {
        let relay: FakePushRelay
        let target: SwitchableHTTPTarget
        let hub: MonitoringHub
        var access = ""
        var deviceID: Int64 = 0

        init(mobile: MobileAPITests, engine: TestEngine, events: [JSON] = ["monitor_down", "monitor_up"]) throws {
            relay = try FakePushRelay()
            target = try SwitchableHTTPTarget()
            hub = try MonitoringHub(engine: engine)
            let s = try expectJSON(try hub.call("PATCH", "/api/settings",
                                                json: ["mobile_push": ["enabled": true, "relay_url": .string(relay.baseURL)]]))
            #expect(s["mobile_push"]?["registered"] == true)
            access = try mobile.signIn(hub.hub)
            let d = try expectJSON(try hub.hub.call("POST", "/api/mobile/devices", token: access,
                                                    json: ["platform": "ios", "token": "apns-phone-1", "name": "iPhone",
                                                           "app_version": "1.0"]), 201)
            deviceID = try #require(d["id"]?.intValue)
            _ = try expectJSON(try hub.call("POST", "/api/channels", json: [
                "name": "Phones", "type": "mobile", "events": .array(events), "config": ["users": []],
            ]), 201)
        }

        deinit {
            relay.stop()
            target.stop()
        }

        func alerts() -> [FakePushRelay.Message] { relay.delivered.filter { $0.kind == "alert" } }
        func liveActivity() -> [FakePushRelay.Message] { relay.delivered.filter { $0.kind == "liveactivity" } }

        func waitUntil(_ what: String, timeoutMillis: Int = 20_000, _ done: () -> Bool) {
            let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
            while !done() {
                if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
                usleep(50_000)
            }
        }
    }

    @Test(arguments: TestEngine.all) func downUpMaintenanceAndLiveActivity(engine: TestEngine) throws {
        let s = try Setup(mobile: mobile, engine: engine, events: ["monitor_down", "monitor_up"])
        let hubID = try #require(try expectJSON(try s.hub.call("GET", "/api/settings"))["hub_id"]?.stringValue)
        // The phone can show a Live Activity.
        let put = try s.hub.hub.call("PUT", "/api/mobile/live-activity/start-token", token: s.access,
                                     json: ["device_id": .int(s.deviceID), "token": "la-start-1"])
        #expect(put.status == 204)
        let (id, _) = try s.hub.createChecked(httpMonitor("API", s.target.healthURL))

        s.target.setStatus(503)
        _ = try s.hub.check(id)
        s.waitUntil("MONITOR_DOWN") { s.alerts().count == 1 && s.liveActivity().count == 1 }
        let down = try #require(s.alerts().first)
        #expect(down.token == "apns-phone-1")
        #expect(down.aps["category"]?.stringValue == "MONITOR_DOWN")
        #expect(down.aps["interruption-level"]?.stringValue == "time-sensitive")
        #expect(down.aps["alert"]?["title"]?.stringValue == "API is down")
        #expect(down.aps["alert"]?["body"]?.stringValue?.contains("HTTP 503") == true)
        #expect(down.payload["hub_id"]?.stringValue == hubID)
        #expect(down.payload["monitor_id"]?.intValue == id)
        #expect(down.payload["incident_id"]?.intValue != nil)
        let start = try #require(s.liveActivity().first)
        #expect(start.token == "la-start-1" && start.aps["event"]?.stringValue == "start")
        #expect(start.aps["content-state"]?["down_count"]?.intValue == 1)

        // The phone reports the activity it started: it gets the current state.
        let token = try s.hub.hub.call("PUT", "/api/mobile/live-activity/token", token: s.access,
                                       json: ["device_id": .int(s.deviceID), "activity_id": "act-1", "token": "la-update-1"])
        #expect(token.status == 204)
        s.waitUntil("update") { s.liveActivity().count == 2 }
        let update = try #require(s.liveActivity().last)
        #expect(update.token == "la-update-1" && update.aps["event"]?.stringValue == "update")

        s.target.setStatus(200)
        _ = try s.hub.check(id)
        s.waitUntil("MONITOR_UP and end") { s.alerts().count == 2 && s.liveActivity().count == 3 }
        #expect(s.alerts().last?.aps["category"]?.stringValue == "MONITOR_UP")
        let end = try #require(s.liveActivity().last)
        #expect(end.token == "la-update-1" && end.aps["event"]?.stringValue == "end")
        #expect(end.aps["dismissal-date"]?.intValue != nil)
        let stamps = s.liveActivity().compactMap { $0.aps["timestamp"]?.intValue }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })

        // During maintenance: nothing at all.
        _ = try expectJSON(try s.hub.call("POST", "/api/monitors/\(id)/mute", json: ["minutes": 30]), 201)
        s.target.setStatus(503)
        _ = try s.hub.check(id)
        s.target.setStatus(200)
        _ = try s.hub.check(id)
        usleep(1_500_000)
        #expect(s.alerts().count == 2 && s.liveActivity().count == 3)
        #expect(Set(s.relay.delivered.map(\.id)).count == s.relay.delivered.count)
    }

    @Test(arguments: TestEngine.all) func relayDownWhileTheHubIsKilledEveryAlertArrivesOnce(engine: TestEngine) throws {
        let s = try Setup(mobile: mobile, engine: engine)
        let (id, _) = try s.hub.createChecked(httpMonitor("API", s.target.healthURL))
        s.relay.failSends(status: 503, retryAfter: "1")
        s.target.setStatus(503)
        _ = try s.hub.check(id)
        s.waitUntil("a refused attempt") { s.relay.sendRequests.contains { $0.status == 503 } }
        // Killed while the alert waits for its retry; restarted at once.
        try s.hub.hub.restart(hard: true)
        s.waitUntil("a refused attempt after the restart") { s.relay.sendRequests.filter { $0.status == 503 }.count >= 2 }
        s.target.setStatus(200)
        _ = try s.hub.check(id)
        try s.hub.hub.restart(hard: true)
        #expect(s.relay.delivered.isEmpty)
        s.relay.healthy()
        s.waitUntil("both alerts after the relay recovered", timeoutMillis: 60_000) { s.alerts().count >= 2 }
        usleep(1_000_000)
        let ids = s.alerts().map(\.id)
        #expect(ids.count == 2 && Set(ids).count == 2, "each alert once: \(ids)")
        #expect(s.alerts().map { $0.aps["category"]?.stringValue ?? "" } == ["MONITOR_DOWN", "MONITOR_UP"])
    }
}
