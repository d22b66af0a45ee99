import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Reminders through the running binary to a real loopback webhook receiver
/// and, in the same run, to a phone through a fake push relay.
/// Slots are whole minutes and the hub's reminder pass runs every 15 s, so
/// this suite waits about two and a half minutes; the waits are bounds, not
/// assertions on timing.
///
/// "A monitor in maintenance alerts nothing" is proven end to end by
/// `NotifyWebhookTests.downUpMaintenanceAndTest` (muted monitor goes down and
/// up: nothing reaches the webhook); no reminders while quiet is covered by
/// `ReminderJobTests.nothingWhileQuietAndTheSlotMovesOn`.
@Suite struct NotifyReminderTests {
    func waitUntil(_ what: String, timeoutMillis: Int, _ done: () -> Bool) {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
            usleep(200_000)
        }
    }

    func body(_ r: RecordingHTTPReceiver.Received) -> JSON { (try? JSON.parse(r.body)) ?? .null }

    @Test func reminderEveryMinuteUntilAcknowledged() throws {
        let receiver = try RecordingHTTPReceiver()
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        let channel = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "ops hook", "type": "webhook", "events": ["monitor_down", "monitor_up"], "reminder_minutes": 1,
            "config": ["url": .string(receiver.baseURL + "/hook")],
        ]), 201)
        #expect(channel["reminder_minutes"] == 1)
        // The same through the push relay to a phone.
        let relay = try FakePushRelay()
        defer { relay.stop() }
        _ = try expectJSON(try hub.call("PATCH", "/api/settings",
                                        json: ["mobile_push": ["enabled": true, "relay_url": .string(relay.baseURL)]]))
        let access = try MobileAPITests().signIn(hub.hub)
        _ = try expectJSON(try hub.hub.call("POST", "/api/mobile/devices", token: access,
                                            json: ["platform": "ios", "token": "apns-1", "name": "iPhone", "app_version": "1"]), 201)
        _ = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "Phones", "type": "mobile", "events": ["monitor_down", "monitor_up"], "reminder_minutes": 1,
            "config": ["users": []],
        ]), 201)
        func phone() -> [String] {
            relay.delivered.filter { $0.kind == "alert" }.compactMap { $0.aps["alert"]?["title"]?.stringValue }
        }
        let (id, _) = try hub.createChecked(httpMonitor("API", target.healthURL))

        target.setStatus(503)
        try hub.check(id)
        waitUntil("the alert", timeoutMillis: 15_000) { receiver.received.count == 1 }
        let alert = body(try #require(receiver.received.first))
        #expect(alert["kind"] == "alert" && alert["event"] == "monitor_down")
        let incident = try #require(try hub.incidents(id, status: "open").first)
        let incidentID = try #require(incident["id"]?.intValue)

        // Due one minute after the alert; the pass runs every 15 s.
        waitUntil("the reminder", timeoutMillis: 110_000) { receiver.received.count >= 2 }
        let reminder = body(receiver.received[min(1, receiver.received.count - 1)])
        #expect(reminder["kind"] == "reminder" && reminder["event"] == "monitor_down")
        #expect(reminder["incident_id"]?.intValue == incidentID)
        #expect(reminder["title"]?.stringValue?.contains("Reminder: API is down") == true)
        #expect(reminder["since"] == alert["since"], "since = when the incident opened")
        waitUntil("the phone's reminder", timeoutMillis: 20_000) { phone().count >= 2 }
        #expect(phone().prefix(2) == ["API is down", "API is still down"])

        let acked = try expectJSON(try hub.call("POST", "/api/incidents/\(incidentID)/acknowledge"))
        #expect(acked["acknowledged_at"] != .null && acked["status"] == "open")
        let afterAck = receiver.received.count
        let phoneAfterAck = phone().count
        // The next slot was at most a minute after the reminder; one more
        // pass after it and nothing has come.
        usleep(70_000_000)
        #expect(receiver.received.count == afterAck, "no reminder after the acknowledgement")
        #expect(phone().count == phoneAfterAck, "no push reminder after the acknowledgement")
        #expect(try hub.incident(incidentID)["status"] == "open", "still down: only the acknowledgement stopped them")
    }
}
