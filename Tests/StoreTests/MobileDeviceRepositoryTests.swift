import Testing
import Store
import TestSupport

/// `MobileDevices`: phones bound to OAuth sign-ins (SPEC §6).
@Suite struct MobileDeviceRepositoryTests {
    /// A database with two users and a sign-in each (plus a second sign-in
    /// of the first user).
    private struct Fixture {
        let dir = TempDir()
        let db: Database
        let alice: Int64
        let bob: Int64
        let aliceSignIn: Int64
        let aliceSecondSignIn: Int64
        let bobSignIn: Int64

        init(_ engine: TestEngine) throws {
            db = try engine.open(in: dir.path)
            let ids = try db.write { c throws in
                let a = try Users.insert(c, email: "alice@example.com", name: "A", role: "admin", passwordHash: nil, now: 1).id
                let b = try Users.insert(c, email: "bob@example.com", name: "B", role: "readonly", passwordHash: nil, now: 1).id
                let s1 = try OAuthStore.insertSignIn(c, userID: a, clientID: "pingtxt-app", scope: "write", now: 2).id
                let s2 = try OAuthStore.insertSignIn(c, userID: a, clientID: "pingtxt-app", scope: "write", now: 3).id
                let s3 = try OAuthStore.insertSignIn(c, userID: b, clientID: "pingtxt-app", scope: "read", now: 4).id
                return [a, b, s1, s2, s3]
            }
            (alice, bob, aliceSignIn, aliceSecondSignIn, bobSignIn) = (ids[0], ids[1], ids[2], ids[3], ids[4])
        }

        func enroll(_ signIn: Int64, _ user: Int64, token: String, name: String = "Phone",
                    now: Int64 = 10) throws -> (device: MobileDeviceRecord, created: Bool) {
            try db.write { c throws in
                try MobileDevices.enroll(c, MobileDeviceRecord(signInID: signIn, userID: user, platform: "ios", token: token,
                                                               name: name, appVersion: "1.0"), now: now)
            }
        }
    }

    @Test(arguments: TestEngine.all) func enrollNewThenSameTokenUpdates(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let first = try f.enroll(f.aliceSignIn, f.alice, token: "tok-1", now: 10)
        #expect(first.created)
        #expect(first.device.id > 0 && first.device.createdAt == 10 && first.device.updatedAt == 10)
        #expect(first.device.name == "Phone" && first.device.appVersion == "1.0" && first.device.liveActivityStartToken == nil)

        let again = try f.enroll(f.aliceSignIn, f.alice, token: "tok-1", name: "Renamed", now: 20)
        #expect(!again.created)
        #expect(again.device.id == first.device.id && again.device.name == "Renamed")
        #expect(again.device.createdAt == 10 && again.device.updatedAt == 20)
        let listed = try f.db.read { c in try MobileDevices.forSignIn(c, signInID: f.aliceSignIn) }
        #expect(listed.map(\.id) == [first.device.id])
    }

    @Test(arguments: TestEngine.all) func sameTokenOnAnotherSignInMovesThePhoneAndResetsLiveActivity(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let d = try f.enroll(f.aliceSignIn, f.alice, token: "tok-1").device
        try f.db.write { c throws in
            try MobileDevices.setStartToken(c, id: d.id, token: "start-1", now: 11)
            try MobileDevices.setActivity(c, id: d.id, activityID: "act-1", token: "upd-1", now: 12)
        }
        // The phone signed in again (here as another user): one row, now there.
        let moved = try f.enroll(f.bobSignIn, f.bob, token: "tok-1", now: 30)
        #expect(!moved.created && moved.device.id == d.id)
        #expect(moved.device.signInID == f.bobSignIn && moved.device.userID == f.bob)
        #expect(moved.device.liveActivityStartToken == nil && moved.device.liveActivityID == nil
                && moved.device.liveActivityToken == nil)
        try f.db.read { c throws in
            #expect(try MobileDevices.forSignIn(c, signInID: f.aliceSignIn).isEmpty)
            #expect(try MobileDevices.forSignIn(c, signInID: f.bobSignIn).map(\.id) == [d.id])
        }
        // Re-enrolling on the same sign-in keeps the Live Activity state.
        try f.db.write { c in try MobileDevices.setStartToken(c, id: d.id, token: "start-2", now: 31) }
        let same = try f.enroll(f.bobSignIn, f.bob, token: "tok-1", now: 32)
        #expect(same.device.liveActivityStartToken == "start-2")
    }

    @Test(arguments: TestEngine.all) func deleteFailsThatDevicesPendingPushesOnly(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let d1 = try f.enroll(f.aliceSignIn, f.alice, token: "tok-1").device
        let d2 = try f.enroll(f.aliceSignIn, f.alice, token: "tok-2").device
        let (r1, r2) = try f.db.write { c throws in
            (try Outbox.insert(c, OutboxRecord(channelID: nil, eventID: nil, kind: "liveactivity", transport: "push",
                                               deviceID: d1.id, payload: "{}", nextAttemptAt: 100), now: 100),
             try Outbox.insert(c, OutboxRecord(channelID: nil, eventID: nil, kind: "liveactivity", transport: "push",
                                               deviceID: d2.id, payload: "{}", nextAttemptAt: 100), now: 100))
        }
        #expect(try f.db.write { c in try MobileDevices.delete(c, id: d1.id) })
        #expect(try !f.db.write { c in try MobileDevices.delete(c, id: d1.id) })
        try f.db.read { c throws in
            #expect(try MobileDevices.find(c, id: d1.id) == nil)
            let failed = try Outbox.find(c, id: r1)
            #expect(failed?.status == "failed" && failed?.lastError == "device removed")
            #expect(try Outbox.find(c, id: r2)?.status == "pending")
            #expect(try MobileDevices.find(c, id: d2.id) != nil)
        }
    }

    @Test(arguments: TestEngine.all) func revokeSignInRemovesItsDevicesOnly(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let mine = try f.enroll(f.aliceSignIn, f.alice, token: "tok-1").device
        let other = try f.enroll(f.aliceSecondSignIn, f.alice, token: "tok-2").device
        let row = try f.db.write { c throws in
            try Outbox.insert(c, OutboxRecord(channelID: nil, eventID: nil, kind: "liveactivity", transport: "push",
                                              deviceID: mine.id, payload: "{}", nextAttemptAt: 100), now: 100)
        }
        #expect(try f.db.write { c in try OAuthStore.revokeSignIn(c, id: f.aliceSignIn, now: 50) })
        try f.db.read { c throws in
            #expect(try MobileDevices.forSignIn(c, signInID: f.aliceSignIn).isEmpty)
            #expect(try MobileDevices.find(c, id: mine.id) == nil)
            #expect(try MobileDevices.find(c, id: other.id) != nil)
            #expect(try MobileDevices.active(c, userIDs: [f.alice]).map(\.id) == [other.id])
            let failed = try Outbox.find(c, id: row)
            #expect(failed?.status == "failed" && failed?.lastError == "sign-in revoked")
        }
    }

    @Test(arguments: TestEngine.all) func clearActivityClearsOnlyTheNamedActivity(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let d = try f.enroll(f.aliceSignIn, f.alice, token: "tok-1").device
        try f.db.write { c throws in
            try MobileDevices.setStartToken(c, id: d.id, token: "start-1", now: 11)
            try MobileDevices.setActivity(c, id: d.id, activityID: "act-1", token: "upd-1", now: 12)
        }
        // A stale report about an older activity changes nothing.
        #expect(try !f.db.write { c in try MobileDevices.clearActivity(c, id: d.id, activityID: "act-0", now: 13) })
        var now = try #require(try f.db.read { c in try MobileDevices.find(c, id: d.id) })
        #expect(now.liveActivityID == "act-1" && now.liveActivityToken == "upd-1" && now.updatedAt == 12)
        // The named one is cleared; the push-to-start token stays for the next outage.
        #expect(try f.db.write { c in try MobileDevices.clearActivity(c, id: d.id, activityID: "act-1", now: 14) })
        now = try #require(try f.db.read { c in try MobileDevices.find(c, id: d.id) })
        #expect(now.liveActivityID == nil && now.liveActivityToken == nil && now.updatedAt == 14)
        #expect(now.liveActivityStartToken == "start-1")
    }
}
