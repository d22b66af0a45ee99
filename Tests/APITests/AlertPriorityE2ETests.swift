import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SPEC §10 priorities and quiet hours end to end: the running binary, the
/// stand-in relay, monitors of each priority band going down, and a user's
/// quiet hours making a priority-6 push passive while a priority-8 one
/// stays as loud as it was, decided when the push is sent.
@Suite struct AlertPriorityE2ETests {
    let mobile = MobileAPITests()

    /// The current UTC time of day shifted by `minutes`, as `HH:MM`.
    static func clock(_ minutes: Int64) -> String {
        let m = ((Time.now() / 60 + minutes) % 1440 + 1440) % 1440
        let h = m / 60, mm = m % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (mm < 10 ? "0" : "") + String(mm)
    }

    func monitor(_ s: PushE2ETests.Setup, _ name: String, priority: Int64?) throws -> Int64 {
        try s.hub.createChecked(httpMonitor(name, s.target.healthURL, [("priority", JSON.from(priority))])).id
    }

    func alert(_ s: PushE2ETests.Setup, for monitor: Int64, event: String) -> FakePushRelay.Message? {
        s.alerts().last { $0.payload["monitor_id"]?.intValue == monitor && $0.payload["event"]?.stringValue == event }
    }

    @Test(arguments: TestEngine.all) func eachPriorityBandOnThePhone(engine: TestEngine) throws {
        let s = try PushE2ETests.Setup(mobile: mobile, engine: engine, events: ["monitor_down", "monitor_up"])
        // Band ends of the §10 table: 0–1, 2–3, 4–7, 8–10.
        let bands: [(priority: Int64, level: String, sound: Bool, relay: Int64)] = [
            (1, "passive", false, 5), (3, "active", false, 10), (6, "active", true, 10), (9, "time-sensitive", true, 10),
        ]
        var ids: [Int64] = []
        for b in bands { ids.append(try monitor(s, "P\(b.priority)", priority: b.priority)) }
        s.target.setStatus(503)
        for id in ids { try s.hub.check(id) }
        s.waitUntil("four downs") { s.alerts().count == 4 }
        let hubURL = "http://127.0.0.1:\(s.hub.hub.port)"
        for (b, id) in zip(bands, ids) {
            let m = try #require(alert(s, for: id, event: "monitor_down"), "down of P\(b.priority)")
            #expect(m.json["priority"]?.intValue == b.relay, "relay priority of \(b.priority)")
            #expect(m.aps["interruption-level"]?.stringValue == b.level, "level of \(b.priority)")
            #expect(m.aps["sound"]?.stringValue == (b.sound ? "default" : nil), "sound of \(b.priority)")
            #expect(m.payload["priority"]?.intValue == b.priority)
            let incident = try #require(m.payload["incident_id"]?.intValue)
            #expect(m.payload["url"]?.stringValue == "\(hubURL)/incidents/\(incident)")
            #expect(m.payload["event_id"]?.intValue != nil)
        }
        // The all-clear of a priority-9 monitor is never louder than 4.
        s.target.setStatus(200)
        try s.hub.check(ids[3])
        s.waitUntil("the up") { alert(s, for: ids[3], event: "monitor_up") != nil }
        let up = try #require(alert(s, for: ids[3], event: "monitor_up"))
        #expect(up.payload["priority"]?.intValue == 4 && up.aps["interruption-level"]?.stringValue == "active")
        #expect(up.aps["sound"]?.stringValue == "default")
        // The payloads' event ids are the feed's.
        let feed = try expectJSON(try s.hub.call("GET", "/api/events?limit=500"))["items"]?.arrayValue ?? []
        let feedIDs = Set(feed.compactMap { $0["id"]?.intValue })
        #expect(s.alerts().allSatisfy { feedIDs.contains($0.payload["event_id"]?.intValue ?? -1) })
    }

    @Test(arguments: TestEngine.all) func quietHoursQuietSixButNotEight(engine: TestEngine) throws {
        let s = try PushE2ETests.Setup(mobile: mobile, engine: engine, events: ["monitor_down"])
        // The app sets its user's quiet hours with its own token: the hour around now, UTC.
        let quiet: JSON = ["enabled": true, "start": .string(Self.clock(-60)), "end": .string(Self.clock(60)), "timezone": "UTC",
                           "min_priority": 8]
        let saved = try expectJSON(try s.hub.hub.call("PUT", "/api/me/quiet-hours", token: s.access, json: quiet))
        #expect(saved == quiet)
        let six = try monitor(s, "Six", priority: 6)
        let eight = try monitor(s, "Eight", priority: 8)
        s.target.setStatus(503)
        try s.hub.check(six)
        try s.hub.check(eight)
        s.waitUntil("two downs") { s.alerts().count == 2 }
        let low = try #require(alert(s, for: six, event: "monitor_down"))
        #expect(low.aps["interruption-level"]?.stringValue == "passive" && low.aps["sound"] == nil, "quiet: \(low.json.text)")
        #expect(low.aps["category"]?.stringValue == "MONITOR_DOWN" && low.aps["alert"]?["title"]?.stringValue == "Six is down")
        #expect(low.json["priority"]?.intValue == 10 && low.payload["priority"]?.intValue == 6, "delivered at once, priority kept")
        let high = try #require(alert(s, for: eight, event: "monitor_down"))
        #expect(high.aps["interruption-level"]?.stringValue == "time-sensitive" && high.aps["sound"]?.stringValue == "default")
    }

    /// Decided when sent: a push queued inside quiet hours that is only
    /// delivered after they were turned off arrives loud.
    @Test(arguments: TestEngine.all) func quietHoursAreDecidedWhenAPushLeaves(engine: TestEngine) throws {
        let s = try PushE2ETests.Setup(mobile: mobile, engine: engine, events: ["monitor_down"])
        var quiet: JSON = ["enabled": true, "start": .string(Self.clock(-60)), "end": .string(Self.clock(60)), "timezone": "UTC"]
        _ = try expectJSON(try s.hub.hub.call("PUT", "/api/me/quiet-hours", token: s.access, json: quiet))
        let six = try monitor(s, "Six", priority: 6)
        s.relay.failSends(status: 503, retryAfter: "1")
        s.target.setStatus(503)
        try s.hub.check(six)
        s.waitUntil("a refused attempt") { s.relay.sendRequests.contains { $0.status == 503 } }
        quiet = ["enabled": false, "start": "22:00", "end": "07:00", "timezone": "UTC"]
        _ = try expectJSON(try s.hub.hub.call("PUT", "/api/me/quiet-hours", token: s.access, json: quiet))
        s.relay.healthy()
        s.waitUntil("the retried push", timeoutMillis: 60_000) { s.alerts().count == 1 }
        let m = try #require(s.alerts().first)
        #expect(m.aps["interruption-level"]?.stringValue == "active" && m.aps["sound"]?.stringValue == "default")
    }
}
