import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SPEC §15 messages through the running binary: a message reaches a
/// webhook and a phone (stand-in relay) with its priority and category
/// MESSAGE, is quiet on the phone during its user's quiet hours, is listed
/// in `/api/events` as event `message`, and respects channel subscriptions,
/// `min_priority`, explicit channel ids and maintenance. Alarm channels
/// (`config.alarm`) make the push at least time-sensitive with `"alarm": true`.
@Suite struct MessagesE2ETests {
    let mobile = MobileAPITests()

    func channel(_ hub: MonitoringHub, _ name: String, _ type: String, events: [JSON], config: JSON,
                 minPriority: Int64 = 0) throws -> Int64 {
        let c = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": .string(name), "type": .string(type), "events": .array(events), "config": config,
            "min_priority": .int(minPriority),
        ]), 201)
        return try #require(c["id"]?.intValue)
    }

    func messages(_ s: PushE2ETests.Setup) -> [FakePushRelay.Message] {
        s.alerts().filter { $0.payload["event"]?.stringValue == "message" }
    }

    @Test(arguments: TestEngine.all) func aMessageReachesAWebhookAndAPhoneAndTheFeed(engine: TestEngine) throws {
        let s = try PushE2ETests.Setup(mobile: mobile, engine: engine, events: ["message"])
        let receiver = try RecordingHTTPReceiver()
        let hook = try channel(s.hub, "hook", "webhook", events: ["message"], config: ["url": .string(receiver.baseURL + "/hook")])
        // Not subscribed to messages: left out when no channel is named.
        let other = try RecordingHTTPReceiver()
        let downOnly = try channel(s.hub, "downs", "webhook", events: ["monitor_down"], config: ["url": .string(other.baseURL + "/x")])

        let sent = try expectJSON(try s.hub.call("POST", "/api/messages", json: [
            "title": "Backup done", "body": "nightly backup: 42 GB in 8 min", "priority": 6,
        ]), 201)
        let eventID = try #require(sent["event_id"]?.intValue)
        #expect(sent["id"]?.intValue != nil && sent["title"] == "Backup done" && sent["priority"] == 6)
        let sentTo: [JSON] = sent["channel_ids"]?.arrayValue ?? []
        #expect(sentTo.contains(.int(hook)))
        #expect(sent["channel_ids"]?.arrayValue?.contains(.int(downOnly)) == false)
        #expect(sent["created_at"]?.stringValue.flatMap(Time.parseRFC3339) != nil)

        s.waitUntil("the webhook and the phone") { receiver.received.count == 1 && messages(s).count == 1 }
        let body = try JSON.parse(try #require(receiver.received.first).body)
        #expect(body["event"] == "message" && body["event_id"]?.intValue == eventID && body["priority"] == 6)
        #expect(body["title"]?.stringValue?.contains("Backup done") == true && body["text"] == "nightly backup: 42 GB in 8 min")
        #expect(body["monitor"] == .null && body["incident_id"] == .null)
        let push = try #require(messages(s).first)
        #expect(push.aps["category"]?.stringValue == "MESSAGE")
        #expect(push.aps["alert"]?["title"] == "Backup done" && push.aps["alert"]?["body"] == "nightly backup: 42 GB in 8 min")
        #expect(push.payload["priority"] == 6 && push.payload["event_id"]?.intValue == eventID)
        #expect(push.aps["interruption-level"] == "active" && push.aps["sound"] == "default" && push.payload["alarm"] == nil)
        #expect(other.received.isEmpty)

        let feed = try #require(try expectJSON(try s.hub.call("GET", "/api/events"))["items"]?.arrayValue)
        let item = try #require(feed.first { $0["id"]?.intValue == eventID })
        #expect(item["event"] == "message" && item["title"] == "Backup done" && item["body"] == "nightly backup: 42 GB in 8 min")
        #expect(item["priority"] == 6 && item["silenced"] == false && item["incident_id"] == .null)

        // A named channel gets it whatever its events say; min_priority still holds.
        let named = try expectJSON(try s.hub.call("POST", "/api/messages", json: [
            "title": "To downs", "priority": 3, "channel_ids": [.int(downOnly)], "url": "https://example.com/runbook",
        ]), 201)
        #expect(named["channel_ids"] == [.int(downOnly)])
        s.waitUntil("the named channel") { other.received.count == 1 }
        let named1 = try JSON.parse(try #require(other.received.first).body)
        #expect(named1["url"] == "https://example.com/runbook" && named1["priority"] == 3)
        let picky = try channel(s.hub, "picky", "webhook", events: ["message"], config: ["url": .string(other.baseURL + "/p")],
                                minPriority: 7)
        let low = try expectJSON(try s.hub.call("POST", "/api/messages", json: ["title": "low", "priority": 2]), 201)
        #expect(low["channel_ids"]?.arrayValue?.contains(.int(picky)) == false)
        let linkItem = try #require(try expectJSON(try s.hub.call("GET", "/api/events?after=\(eventID)"))["items"]?.arrayValue?.first)
        #expect(linkItem["url"] == "https://example.com/runbook")
        receiver.stop()
        other.stop()
    }

    @Test(arguments: TestEngine.all) func quietHoursSilenceAMessageOnThePhone(engine: TestEngine) throws {
        let s = try PushE2ETests.Setup(mobile: mobile, engine: engine, events: ["message"])
        let quiet: JSON = ["enabled": true, "start": .string(AlertPriorityE2ETests.clock(-60)),
                           "end": .string(AlertPriorityE2ETests.clock(60)), "timezone": "UTC", "min_priority": 8]
        _ = try expectJSON(try s.hub.hub.call("PUT", "/api/me/quiet-hours", token: s.access, json: quiet))
        _ = try expectJSON(try s.hub.call("POST", "/api/messages", json: ["title": "Deploy finished", "priority": 7]), 201)
        _ = try expectJSON(try s.hub.call("POST", "/api/messages", json: ["title": "Disk full", "priority": 9]), 201)
        s.waitUntil("two messages") { messages(s).count == 2 }
        let quieted = try #require(messages(s).first { $0.aps["alert"]?["title"] == "Deploy finished" })
        #expect(quieted.aps["interruption-level"] == "passive" && quieted.aps["sound"] == nil)
        #expect(quieted.aps["category"] == "MESSAGE" && quieted.payload["priority"] == 7)
        let loud = try #require(messages(s).first { $0.aps["alert"]?["title"] == "Disk full" })
        #expect(loud.aps["interruption-level"] == "time-sensitive" && loud.aps["sound"] == "default")
    }

    @Test(arguments: TestEngine.all) func alarmChannelsAndMaintenance(engine: TestEngine) throws {
        let s = try PushE2ETests.Setup(mobile: mobile, engine: engine, events: ["monitor_down"])
        let alarm = try channel(s.hub, "Alarm", "mobile", events: ["message"], config: ["users": [], "alarm": true])
        #expect(try expectJSON(try s.hub.call("GET", "/api/channels/\(alarm)"))["config"]?["alarm"] == true)
        _ = try expectJSON(try s.hub.call("POST", "/api/messages", json: ["title": "Wake up", "priority": 3]), 201)
        s.waitUntil("the alarm push") { messages(s).count == 1 }
        let m = try #require(messages(s).first)
        #expect(m.payload["alarm"] == true && m.payload["hub_id"]?.stringValue?.isEmpty == false)
        #expect(m.aps["interruption-level"] == "time-sensitive" && m.aps["sound"] == "default" && m.json["priority"] == 10)
        #expect(m.payload["priority"] == 3, "the priority is the sender's; only the phone's loudness is raised")

        // About a monitor in maintenance: recorded as silenced, sent nowhere.
        let (id, _) = try s.hub.createChecked(httpMonitor("API", s.target.healthURL))
        _ = try expectJSON(try s.hub.call("POST", "/api/monitors/\(id)/mute", json: ["minutes": 30]), 201)
        let quietOne = try expectJSON(try s.hub.call("POST", "/api/messages", json: [
            "title": "About API", "monitor_id": .int(id), "channel_ids": [.int(alarm)],
        ]), 201)
        #expect(quietOne["channel_ids"] == [])
        let item = try #require(try expectJSON(try s.hub.call("GET", "/api/events"))["items"]?.arrayValue?.last)
        #expect(item["event"] == "message" && item["silenced"] == true && item["monitor_id"]?.intValue == id)
        usleep(800_000)
        #expect(messages(s).count == 1)
    }

    @Test func validationAndAccess() throws {
        let hub = try MonitoringHub()
        let long = String(repeating: "x", count: 201)
        let cases: [(JSON, String)] = [
            ([:], "title"), (["title": ""], "title"), (["title": .string(long)], "title"),
            (["title": "a", "body": .string(String(repeating: "é", count: 2001))], "body"),
            (["title": "a", "priority": 11], "priority"), (["title": "a", "priority": -1], "priority"),
            (["title": "a", "channel_ids": [999]], "channel_ids"), (["title": "a", "channel_ids": "x"], "channel_ids"),
            (["title": "a", "monitor_id": 999], "monitor_id"), (["title": "a", "url": "ftp://x"], "url"),
        ]
        for (body, field) in cases {
            expectError(try hub.call("POST", "/api/messages", json: body), 400, "validation_failed", field: field)
        }
        // 200 bytes exactly is fine, the default priority is 5.
        let ok = try expectJSON(try hub.call("POST", "/api/messages", json: ["title": .string(String(repeating: "x", count: 200))]), 201)
        #expect(ok["priority"] == 5 && ok["body"] == "" && ok["channel_ids"] == [])
        expectError(try hub.hub.call("POST", "/api/messages", json: ["title": "a"]), 401, "unauthorized")
        expectError(try hub.hub.call("POST", "/api/messages", token: try hub.hub.token(scope: "read"), json: ["title": "a"]),
                    403, "insufficient_scope")
    }
}
