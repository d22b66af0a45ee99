import Auth
import Crypto
import Store
import Testing
import TestSupport

/// SPEC §15's one-time links with a clock moved by hand: a web login works
/// within 60 s and once; a recovery link sets the password once, ends the
/// user's sessions and makes the old password fail; a newer recovery link
/// ends the older one; an invitation lasts 7 days.
@Suite struct SignInLinkServiceTests {
    @Test(arguments: TestEngine.all) func lifetimesAndOneUse(engine: TestEngine) throws {
        let t = try TestDatabase(engine)
        let clock = TestClock(1_000_000)
        let users = UserService(database: t.db, clock: clock.read)
        let links = SignInLinkService(database: t.db, clock: clock.read)
        let sessions = SessionService(database: t.db, clock: clock.read)
        let u = try users.create(email: "a@example.com", name: nil, role: .admin, password: "old password here")

        let late = try links.create(.webLogin, userID: u.id, canWrite: true, next: "/notify")
        let early = try links.create(.webLogin, userID: u.id, canWrite: false, next: "/")
        clock.advance(59)
        let used = try #require(try links.consume(.webLogin, token: early))
        #expect(used.user.id == u.id && !used.link.canWrite && used.link.next == "/")
        #expect(try links.consume(.webLogin, token: early) == nil, "once")
        clock.advance(1)
        #expect(try links.consume(.webLogin, token: late) == nil, "60 s and no more")
        #expect(try links.consume(.webLogin, token: "x") == nil)

        let session = try sessions.create(user: u, stage: .active, client: nil).token
        let first = try links.create(.passwordReset, userID: u.id)
        let second = try links.create(.passwordReset, userID: u.id)
        #expect(try !links.setsPassword(token: first), "a newer recovery link ends the older one")
        #expect(throws: AuthError.self) { try links.setPassword(token: second, password: "short") }
        #expect(try links.setsPassword(token: second), "a refused password leaves the link usable")
        clock.advance(29 * 60)
        #expect(try links.setPassword(token: second, password: "new password here")?.id == u.id)
        #expect(try links.setPassword(token: second, password: "another password") == nil, "once")
        #expect(try users.verifyPassword(email: "a@example.com", password: "old password here") == nil)
        #expect(try users.verifyPassword(email: "a@example.com", password: "new password here")?.id == u.id)
        #expect(sessions.find(cookieValue: session) == nil, "the user's sessions ended")
        let stale = try links.create(.passwordReset, userID: u.id)
        clock.advance(30 * 60)
        #expect(try links.setPassword(token: stale, password: "new password here") == nil, "30 minutes")

        let invited = try users.create(email: "b@example.com", name: nil, role: .readonly, password: nil)
        let invitation = try links.create(.invitation, userID: invited.id)
        #expect(try links.invitedUserIDs() == [invited.id])
        clock.advance(7 * 86_400 - 1)
        #expect(try links.setPassword(token: invitation, password: "first password!")?.id == invited.id)
        #expect(try links.invitedUserIDs().isEmpty)
    }
}
