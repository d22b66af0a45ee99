import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The issue-13 channel types through the running binary, each pointed at
/// its stand-in (a real loopback server that checks the documented request
/// and the credential, and answers as the service does).
@Suite struct NotifyServicesE2ETests {
    static let routingKey = "0123456789abcdef0123456789abcdef"
    static let genieKey = "eb243592-faa2-4ba2-a551-1afdf565c889"
    static let appToken = "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
    static let userKey = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"
    static let room = "!ops:matrix.example.org"

    func waitUntil(_ what: String, timeoutMillis: Int = 15_000, sourceLocation: SourceLocation = #_sourceLocation,
                   _ done: () -> Bool) {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation); return }
            usleep(50_000)
        }
    }

    func channel(_ hub: MonitoringHub, _ type: String, _ config: JSON) throws -> Int64 {
        let created = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": .string("\(type) on call"), "type": .string(type), "events": ["monitor_down", "monitor_up"], "config": config,
        ]), 201)
        return try #require(created["id"]?.intValue)
    }

    /// A monitor on a switchable target, checked once (up).
    func monitor(_ hub: MonitoringHub, _ target: SwitchableHTTPTarget) throws -> Int64 {
        try hub.createChecked(httpMonitor("API", target.healthURL)).id
    }

    func goDown(_ hub: MonitoringHub, _ target: SwitchableHTTPTarget, _ id: Int64) throws {
        target.setStatus(503)
        try hub.check(id)
    }

    func goUp(_ hub: MonitoringHub, _ target: SwitchableHTTPTarget, _ id: Int64) throws {
        target.setStatus(200)
        try hub.check(id)
    }

    func hubID(_ hub: MonitoringHub) throws -> String {
        try #require(try expectJSON(try hub.call("GET", "/api/settings"))["hub_id"]?.stringValue)
    }

    func openIncident(_ hub: MonitoringHub, _ monitorID: Int64) throws -> Int64 {
        try #require(try hub.incidents(monitorID, status: "open").first?["id"]?.intValue)
    }

    @Test func pagerDutyTriggerAcknowledgeResolveWithOneDedupKey() throws {
        let pd = try FakePagerDuty(routingKey: Self.routingKey)
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        let channelID = try channel(hub, "pagerduty", ["routing_key": .string(Self.routingKey), "api_url": .string(pd.baseURL)])
        let id = try monitor(hub, target)
        try goDown(hub, target, id)
        waitUntil("trigger") { pd.events.count == 1 }
        let incident = try openIncident(hub, id)
        let key = "pingtxt-\(try hubID(hub))-incident-\(incident)"
        let trigger = try #require(pd.events.first)
        #expect(trigger.action == "trigger" && trigger.dedupKey == key)
        #expect(trigger.json["payload"]?["severity"] == "critical")
        #expect(trigger.json["payload"]?["summary"]?.stringValue?.hasPrefix("🔴 API is down") == true)

        _ = try expectJSON(try hub.call("POST", "/api/incidents/\(incident)/acknowledge"))
        waitUntil("acknowledge") { pd.events.count == 2 }
        // Acknowledging again changes nothing and sends nothing.
        _ = try expectJSON(try hub.call("POST", "/api/incidents/\(incident)/acknowledge"))
        try goUp(hub, target, id)
        waitUntil("resolve") { pd.events.count == 3 }
        usleep(500_000)
        #expect(pd.events.map(\.action) == ["trigger", "acknowledge", "resolve"])
        #expect(Set(pd.events.map(\.dedupKey)) == [key], "one alert, one dedup_key")
        #expect(pd.server.exchanges.allSatisfy { $0.status == 202 })
        let shown = try hub.waitFor("delivery counts", { $0["delivery"]?["sent"] == 3 }) {
            try expectJSON(try hub.call("GET", "/api/channels/\(channelID)"))
        }
        #expect(shown["config"]?["routing_key"] == "********")
        #expect(shown["config"]?["api_url"] == .string(pd.baseURL))
    }

    @Test func opsgenieCreateAcknowledgeCloseWithOneAlias() throws {
        let og = try FakeOpsgenie(apiKey: Self.genieKey)
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        // api_url wins over region.
        _ = try channel(hub, "opsgenie", ["api_key": .string(Self.genieKey), "region": "eu", "api_url": .string(og.baseURL)])
        let id = try monitor(hub, target)
        try goDown(hub, target, id)
        waitUntil("create") { og.actions.count == 1 }
        let incident = try openIncident(hub, id)
        let alias = "pingtxt-\(try hubID(hub))-incident-\(incident)"
        #expect(og.actions.first?.json["priority"] == "P1")
        _ = try expectJSON(try hub.call("POST", "/api/incidents/\(incident)/acknowledge"))
        waitUntil("acknowledge") { og.actions.count == 2 }
        #expect(og.actions.last?.json["user"] == .string(HubProcess.adminEmail))
        try goUp(hub, target, id)
        waitUntil("close") { og.actions.count == 3 }
        #expect(og.actions.map(\.verb) == ["create", "acknowledge", "close"])
        #expect(Set(og.actions.map(\.alias)) == [alias], "one alert, one alias")
        #expect(og.server.exchanges.allSatisfy { $0.status == 202 && $0.header("Authorization") == "GenieKey \(Self.genieKey)" })
    }

    @Test func pushoverDownAndUp() throws {
        let po = try FakePushover(appToken: Self.appToken, userKey: Self.userKey)
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        _ = try channel(hub, "pushover", ["app_token": .string(Self.appToken), "user_key": .string(Self.userKey),
                                          "api_url": .string(po.baseURL)])
        let id = try monitor(hub, target)
        try goDown(hub, target, id)
        waitUntil("down") { po.messages.count == 1 }
        try goUp(hub, target, id)
        waitUntil("up") { po.messages.count == 2 }
        #expect(po.messages.map { $0["priority"] } == [1, 0])
        #expect(po.messages.first?["title"]?.stringValue?.hasPrefix("🔴 API is down") == true)
        #expect(po.messages.last?["title"]?.stringValue?.hasPrefix("✅ API is up again") == true)
    }

    @Test func gotifyDownAndUp() throws {
        let gotify = try FakeGotify(token: "AbCdEf1234567")
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        _ = try channel(hub, "gotify", ["url": .string(gotify.baseURL), "token": "AbCdEf1234567"])
        let id = try monitor(hub, target)
        try goDown(hub, target, id)
        waitUntil("down") { gotify.messages.count == 1 }
        try goUp(hub, target, id)
        waitUntil("up") { gotify.messages.count == 2 }
        #expect(gotify.messages.map { $0["priority"] } == [8, 4])
        #expect(gotify.server.exchanges.allSatisfy { $0.header("X-Gotify-Key") == "AbCdEf1234567" && $0.status == 200 })
    }

    @Test func matrixRetriesWithTheSameTransactionID() throws {
        let matrix = try FakeMatrix(accessToken: "syt_bot_token", roomID: Self.room, encodedRoomID: "%21ops%3Amatrix.example.org")
        matrix.server.failNext(status: 500, body: #"{"errcode":"M_UNKNOWN","error":"Internal server error"}"#)
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        let channelID = try channel(hub, "matrix", ["homeserver": .string(matrix.baseURL), "access_token": "syt_bot_token",
                                                    "room_id": .string(Self.room)])
        let id = try monitor(hub, target)
        try goDown(hub, target, id)
        // The first send is answered 500, the retry (5–10 s later) is posted.
        waitUntil("the retried down alert", timeoutMillis: 30_000) { matrix.messages.count == 1 }
        let txns = matrix.transactionIDs
        #expect(txns.count == 2 && Set(txns).count == 1, "the retry reuses the transaction id: \(txns)")
        #expect(matrix.server.exchanges.map(\.status) == [500, 200])
        #expect(txns.first?.hasPrefix(try hubID(hub) + "-outbox-") == true)
        try goUp(hub, target, id)
        waitUntil("up") { matrix.messages.count == 2 }
        #expect(matrix.messages.last?.content["body"]?.stringValue?.hasPrefix("✅ API is up again") == true)
        #expect(Set(matrix.messages.map(\.txnID)).count == 2)
        let shown = try expectJSON(try hub.call("GET", "/api/channels/\(channelID)"))
        #expect(shown["config"]?["access_token"] == "********")
    }

    @Test func googleChatDownAndUp() throws {
        let chat = try FakeGoogleChat()
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        let channelID = try channel(hub, "googlechat", ["webhook_url": .string(chat.webhookURL)])
        let id = try monitor(hub, target)
        try goDown(hub, target, id)
        waitUntil("down") { chat.messages.count == 1 }
        try goUp(hub, target, id)
        waitUntil("up") { chat.messages.count == 2 }
        #expect(chat.messages.map { $0["text"]?.stringValue?.prefix(12) ?? "" } == ["🔴 API is dow", "✅ API is up "])
        let shown = try expectJSON(try hub.call("GET", "/api/channels/\(channelID)"))
        #expect(shown["config"]?["webhook_url"] == .string("http://127.0.0.1:\(chat.server.port)/********"), "the URL is the credential")
    }
}
