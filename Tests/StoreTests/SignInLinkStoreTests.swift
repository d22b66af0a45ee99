import Testing
import Store
import TestSupport

/// `sign_in_links` and `messages` (0025): a link is used once, only for its
/// purpose, only before it expires; the web session flags round-trip.
@Suite struct SignInLinkStoreTests {
    @Test(arguments: TestEngine.all) func aLinkWorksOnceForItsPurposeBeforeItExpires(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let u = try db.write { try Users.insert($0, email: "a@example.com", name: "", role: "admin", passwordHash: nil, now: 1) }
        try db.write { c in
            try SignInLinks.insert(c, tokenHash: [1], purpose: .webLogin, userID: u.id, canWrite: true, next: "/notify", now: 100,
                                   expiresAt: 160)
            try SignInLinks.insert(c, tokenHash: [2], purpose: .invitation, userID: u.id, now: 100, expiresAt: 200)
        }
        #expect(try db.write { try SignInLinks.consume($0, tokenHash: [1], purpose: .passwordReset, now: 110) } == nil)
        #expect(try db.write { try SignInLinks.consume($0, tokenHash: [9], purpose: .webLogin, now: 110) } == nil)
        #expect(try db.read { try SignInLinks.isUsable($0, tokenHash: [1], purpose: .webLogin, now: 110) })
        let used = try db.write { try SignInLinks.consume($0, tokenHash: [1], purpose: .webLogin, now: 110) }
        #expect(used?.userID == u.id && used?.canWrite == true && used?.next == "/notify")
        #expect(try db.write { try SignInLinks.consume($0, tokenHash: [1], purpose: .webLogin, now: 111) } == nil, "used up")
        #expect(try db.read { try SignInLinks.invitedUserIDs($0, now: 150) } == [u.id])
        #expect(try db.read { try SignInLinks.invitedUserIDs($0, now: 200) } == [], "expired invitations do not count")
        #expect(try db.write { try SignInLinks.consume($0, tokenHash: [2], purpose: .invitation, now: 200) } == nil, "late")
        try db.write { c in
            try SignInLinks.insert(c, tokenHash: [3], purpose: .passwordReset, userID: u.id, now: 300, expiresAt: 400)
            try SignInLinks.revoke(c, userID: u.id, purpose: .passwordReset, now: 301)
        }
        #expect(try db.write { try SignInLinks.consume($0, tokenHash: [3], purpose: .passwordReset, now: 302) } == nil, "revoked")
        #expect(throws: StoreError.self) {
            try db.write { try SignInLinks.insert($0, tokenHash: [3], purpose: .webLogin, userID: u.id, now: 1, expiresAt: 2) }
        }
        // The session flags of a web-login session.
        let s = try db.write { c in
            try WebSessions.insert(c, userID: u.id, hash: [5], csrf: "x", stage: "active", now: 10, expiresAt: 100, client: nil,
                                   fromApp: true, readOnly: true)
        }
        let found = try #require(try db.read { try WebSessions.findByHash($0, hash: [5]) })
        #expect(found.session.fromApp && found.session.readOnly && found.session == s)
        _ = try db.write { try Users.delete($0, id: u.id) }
        #expect(try db.read { try SignInLinks.invitedUserIDs($0, now: 150) } == [])
    }
}
