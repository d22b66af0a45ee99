import Testing
import Core
import Monitoring
import Notify
import Store
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The push side against a fake relay that is a real HTTP server: settings
/// and registration, per-phone rows, batches, per-message results, 401 and
/// the Live Activity driven by real incidents.
@Suite(.serialized) struct PushDeliveryTests {
    final class Fixture {
        let dir: String
        let db: Database
        let relay: FakePushRelay
        let notify: NotifyService
        var signIn: Int64 = 0
        var user: Int64 = 0

        init(_ engine: TestEngine) throws {
            var template = Array("/tmp/pingtxt-push-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try engine.open(in: dir, readers: 4)
            relay = try FakePushRelay()
            notify = NotifyService(database: db, hubName: "Ops hub", publicURL: "https://hub.example")
            try notify.start()
            (user, signIn) = try db.write { c in
                let u = try Users.insert(c, email: "ada@example.com", name: "Ada", role: "admin", passwordHash: nil, now: 1_000)
                return (u.id, try OAuthStore.insertSignIn(c, userID: u.id, clientID: "pingtxt-ios", scope: "write", now: 1_000).id)
            }
        }

        deinit {
            notify.stop()
            relay.stop()
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }

        @discardableResult
        func enroll(_ token: String, startToken: String? = nil) throws -> MobileDeviceRecord {
            try db.write { c in
                let d = try MobileDevices.enroll(c, MobileDeviceRecord(signInID: signIn, userID: user, platform: "ios", token: token,
                                                                        name: "phone", appVersion: "1.0"), now: 1_000).device
                if let startToken { try MobileDevices.setStartToken(c, id: d.id, token: startToken, now: 1_000) }
                return d
            }
        }

        func channel(users: JSON = [], events: [EventKind] = [.monitorDown, .monitorUp]) throws -> Channel {
            try Channel(record: try notify.create(ChannelRecord(name: "Phones", type: "mobile", enabled: true, events: events,
                                                                monitorIDs: [], reminderMinutes: 0,
                                                                config: JSONObject([("users", users)]))))
        }

        func enablePush() throws {
            let s = try notify.push.update(enabled: true, relayURL: relay.baseURL)
            #expect(s.registered)
        }

        /// Waits (up to 10 s) until `cond` holds.
        func eventually(_ cond: () throws -> Bool) rethrows -> Bool {
            for _ in 0..<200 {
                if try cond() { return true }
                usleep(50_000)
            }
            return try cond()
        }

        func row(_ id: Int64) throws -> OutboxRecord { try db.read { try Outbox.find($0, id: id)! } }
    }

    @Test(arguments: TestEngine.all) func registersWhenTurnedOnAndAgainWhenTheRelayChanges(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let off = f.notify.push.settings
        #expect(!off.enabled && !off.registered && off.relayURL == "https://push.pingtxt.com" && off.hubID.count == 32)
        try f.enablePush()
        let reg = try #require(f.relay.registrations.first)
        #expect(reg.hubID == off.hubID && reg.publicURL == "https://hub.example" && reg.name == "Ops hub")
        let other = try FakePushRelay()
        defer { other.stop() }
        let moved = try f.notify.push.update(enabled: nil, relayURL: other.baseURL)
        #expect(moved.registered && moved.relayEpoch == off.relayEpoch + 2 && other.registrations.count == 1)
        let back = try f.notify.push.update(enabled: nil, relayURL: f.relay.baseURL + "/")
        #expect(back.registered && back.relayEpoch == off.relayEpoch + 3 && f.relay.registrations.count == 2)
        // Turning push off and on registers again; a failure is reported, the old key kept.
        f.relay.failRegistrations(status: 503)
        let down = try f.notify.push.update(enabled: false, relayURL: nil)
        #expect(!down.enabled && down.lastError == nil)
        let retried = try f.notify.push.update(enabled: true, relayURL: nil)
        #expect(retried.registered && retried.lastError == "relay answered HTTP 503 to /v1/register")
        // A new relay that refuses: not registered.
        other.failRegistrations(status: 503)
        let refused = try f.notify.push.update(enabled: nil, relayURL: other.baseURL)
        #expect(!refused.registered && refused.lastError == "relay answered HTTP 503 to /v1/register")
        // The hub_id is permanent.
        #expect(try f.db.read { c in try PushSettings.read(c)?.hubID } == off.hubID)
    }

    @Test(arguments: TestEngine.all) func aTestReachesEveryPhoneOfTheChannelsUsers(engine: TestEngine) throws {
        let f = try Fixture(engine)
        try f.enablePush()
        try f.enroll("tok-a")
        try f.enroll("tok-b")
        let ids = try f.notify.sendTest(try f.channel())
        #expect(ids.count == 2)
        #expect(f.eventually { f.relay.delivered.count == 2 })
        let got = f.relay.delivered
        #expect(Set(got.map(\.id)) == Set(ids.map { "outbox-\($0)" }))
        #expect(Set(got.map(\.token)) == ["tok-a", "tok-b"])
        #expect(got.allSatisfy { $0.aps["category"] == nil && $0.aps["interruption-level"]?.stringValue == "passive" })
        #expect(try f.eventually { try ids.allSatisfy { try f.row($0).status == "sent" } })
        // A channel for someone else reaches nobody.
        #expect(try f.notify.sendTest(try f.channel(users: ["bob@example.com"])).isEmpty)
    }

    @Test(arguments: TestEngine.all) func invalidTokenRemovesThePhone(engine: TestEngine) throws {
        let f = try Fixture(engine)
        try f.enablePush()
        let dead = try f.enroll("tok-dead")
        try f.enroll("tok-live")
        f.relay.setInvalidTokens(["tok-dead"])
        let ids = try f.notify.sendTest(try f.channel())
        #expect(f.eventually { f.relay.delivered.count == 1 })
        #expect(try f.eventually { try f.db.read { c in try MobileDevices.find(c, id: dead.id) } == nil })
        #expect(try f.eventually { try ids.map { try f.row($0).status }.sorted() == ["failed", "sent"] })
    }

    @Test(arguments: TestEngine.all) func unauthorizedRegistersAgainOnceThenSends(engine: TestEngine) throws {
        let f = try Fixture(engine)
        try f.enablePush()
        try f.enroll("tok-a")
        f.relay.forgetKeys()
        let ids = try f.notify.sendTest(try f.channel())
        #expect(f.eventually { f.relay.delivered.count == 1 })
        #expect(f.relay.registrations.count == 2)
        #expect(f.relay.sendRequests.map(\.status) == [401, 200])
        #expect(try f.eventually { try f.row(ids[0]).status == "sent" })
    }

    @Test(arguments: TestEngine.all) func batchesHoldAtMost500Messages(engine: TestEngine) throws {
        let f = try Fixture(engine)
        try f.enablePush()
        try f.db.write { c in
            for i in 0..<501 {
                _ = try MobileDevices.enroll(c, MobileDeviceRecord(signInID: f.signIn, userID: f.user, platform: "android",
                                                                   token: "tok-\(i)", name: "p", appVersion: "1"), now: 1_000)
            }
        }
        let ids = try f.notify.sendTest(try f.channel())
        #expect(ids.count == 501)
        #expect(f.eventually { f.relay.delivered.count == 501 })
        #expect(f.relay.sendRequests.allSatisfy { $0.messages <= 500 && $0.status == 200 })
        #expect(f.relay.sendRequests.map(\.messages).reduce(0, +) == 501)
        #expect(Set(f.relay.delivered.map(\.id)).count == 501)
    }

    @Test(arguments: TestEngine.all) func pushOffQueuesNothing(engine: TestEngine) throws {
        let f = try Fixture(engine)
        try f.enroll("tok-a")
        #expect(try f.notify.sendTest(try f.channel()).isEmpty)
    }
}
