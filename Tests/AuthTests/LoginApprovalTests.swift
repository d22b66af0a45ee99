import Auth
import Crypto
import Store
import Testing
import TestSupport

/// The decisions of approving a sign-in on the phone (SPEC §11), with a
/// clock moved by hand: the phases, expiry at 120 s, the number check, the
/// creation limit and the number's distribution.
@Suite struct LoginApprovalRulesTests {
    static func record(status: String = "pending", createdAt: Int64 = 1_000, session: Int64? = 7,
                       code: String = "42") -> LoginApprovalRecord {
        LoginApprovalRecord(id: "AAAAAAAAAAAAAAAAAAAAAA", userID: 1, sessionID: session, code: code, client: "127.0.0.1 · Firefox",
                            address: "127.0.0.1", status: status, createdAt: createdAt,
                            expiresAt: createdAt + LoginApprovalRules.lifetime)
    }

    @Test func waitsFor120SecondsThenExpires() {
        let clock = TestClock(1_000)
        let rules = LoginApprovalRules(clock: clock.read)
        #expect(rules.expiry() == 1_120)
        let a = Self.record()
        #expect(rules.phase(a) == .waiting)
        clock.advance(119)
        #expect(rules.phase(a) == .waiting)
        #expect(rules.answer(a, code: "42", approve: true) == .approve)
        clock.advance(1)
        #expect(rules.phase(a) == .expired)
        #expect(rules.answer(a, code: "42", approve: true) == .ended)
        #expect(rules.answer(a, code: "13", approve: true) == .ended)
    }

    @Test func onlyTheRightNumberWithApproveApproves() {
        let rules = LoginApprovalRules(clock: TestClock(1_010).read)
        let a = Self.record()
        #expect(rules.answer(a, code: "42", approve: true) == .approve)
        #expect(rules.answer(a, code: "24", approve: true) == .refuse)
        #expect(rules.answer(a, code: "4", approve: true) == .refuse)
        #expect(rules.answer(a, code: "420", approve: true) == .refuse)
        #expect(rules.answer(a, code: nil, approve: true) == .refuse)
        #expect(rules.answer(a, code: "42", approve: false) == .refuse)
        #expect(rules.answer(a, code: nil, approve: false) == .refuse)
    }

    @Test func everyAnswerIsFinal() {
        let rules = LoginApprovalRules(clock: TestClock(1_010).read)
        for status in ["approved", "refused", "used"] {
            #expect(rules.answer(Self.record(status: status), code: "42", approve: true) == .ended, "\(status)")
        }
        #expect(rules.phase(Self.record(status: "refused")) == .refused)
        #expect(rules.phase(Self.record(status: "used")) == .used)
        // Its waiting session ended (signed in with a code, logged out): nothing to approve.
        #expect(rules.phase(Self.record(session: nil)) == .expired)
        #expect(rules.answer(Self.record(session: nil), code: "42", approve: true) == .ended)
    }

    @Test func anApprovalMayBePickedUpShortlyAfterItsEnd() {
        let clock = TestClock(1_000)
        let rules = LoginApprovalRules(clock: clock.read)
        let approved = Self.record(status: "approved")
        #expect(rules.phase(approved) == .approved)
        clock.advance(LoginApprovalRules.lifetime + LoginApprovalRules.pickUpGrace - 1)
        #expect(rules.phase(approved) == .approved)
        clock.advance(1)
        #expect(rules.phase(approved) == .expired)
        #expect(rules.phase(Self.record(status: "approved", session: nil)) == .expired)
    }

    @Test func creationLimitPerWindow() {
        let clock = TestClock(10_000)
        let rules = LoginApprovalRules(clock: clock.read)
        let window = LoginApprovalRules.creationWindow
        let four: [Int64] = [9_200, 9_500, 9_900, 9_990]
        #expect(rules.creationRetryAfter(recent: four) == nil)
        // The fifth in the window blocks until the oldest of the five leaves it.
        #expect(rules.creationRetryAfter(recent: four + [9_995]) == 100)
        // Older ones no longer count.
        #expect(rules.creationRetryAfter(recent: [10_000 - window] + four) == nil)
        clock.advance(100)
        #expect(rules.creationRetryAfter(recent: four + [9_995]) == nil)
    }

    @Test func numbersAreTwoDigitsAndUnbiased() {
        #expect(LoginApprovalRules.code(from: [0]) == "10")
        #expect(LoginApprovalRules.code(from: [89]) == "99")
        #expect(LoginApprovalRules.code(from: [90]) == "10")
        #expect(LoginApprovalRules.code(from: [179]) == "99")
        // 180…255 would favour 10–35: skipped.
        #expect(LoginApprovalRules.code(from: [180, 255, 5]) == "15")
        #expect(LoginApprovalRules.code(from: [200, 255]) == nil)
        // Every byte value below 180 hits each number exactly twice.
        var counts: [String: Int] = [:]
        for b in 0..<180 { counts[LoginApprovalRules.code(from: [UInt8(b)]) ?? "", default: 0] += 1 }
        #expect(counts.count == 90 && counts.values.allSatisfy { $0 == 2 })
        let fresh = (0..<200).map { _ in LoginApprovalRules.newCode() }
        #expect(fresh.allSatisfy { $0.count == 2 && (Int($0) ?? 0) >= 10 })
        #expect(Set(fresh).count > 40)
    }

    @Test func idsAre128RandomBits() {
        let ids = (0..<100).map { _ in LoginApprovalRules.newID() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.utf8.count == 22 && LoginApprovalRules.isWellFormedID($0) })
        #expect(ids.allSatisfy { Base64URL.decode($0)?.count == 16 })
        for bad in ["", "short", String(repeating: "A", count: 23), "AAAAAAAAAAAAAAAAAAAA+/", "AAAAAAAAAAAAAAAAAAAA%2"] {
            #expect(!LoginApprovalRules.isWellFormedID(bad), "\(bad)")
        }
    }
}

/// The service over a real database: start, the phone's answer, the
/// browser's pick-up, and the end of the waiting session.
@Suite struct LoginApprovalServiceTests {
    final class Fixture {
        let t: TestDatabase
        let clock = TestClock(1_000_000)
        let service: LoginApprovalService
        let sessions: SessionService
        var user: UserRecord
        let other: UserRecord

        init(_ engine: TestEngine, enabled: Bool = true, phone: Bool = true, totp: Bool = true) throws {
            t = try TestDatabase(engine)
            service = LoginApprovalService(database: t.db, enabled: enabled, clock: clock.read)
            sessions = SessionService(database: t.db, clock: clock.read)
            let u = try t.user("ada@example.com")
            other = try t.user("bob@example.com")
            user = try t.db.write { c in
                if totp { try RecoveryCodes.setTOTP(c, userID: u.id, secret: "JBSWY3DPEHPK3PXP", enabled: true, now: 1) }
                if phone {
                    let signIn = try OAuthStore.insertSignIn(c, userID: u.id, clientID: "pingtxt-app", scope: "write", now: 1).id
                    _ = try MobileDevices.enroll(c, MobileDeviceRecord(signInID: signIn, userID: u.id, platform: "ios",
                                                                       token: "apns-1", name: "iPhone", appVersion: "1"), now: 1)
                }
                return try #require(try Users.find(c, id: u.id))
            }
        }

        /// A waiting session (password right) and an approval for it.
        func start(queued: @escaping (LoginApprovalRecord) -> Void = { _ in })
            throws -> (session: WebSessionRecord, start: LoginApprovalService.Start) {
            let s = try sessions.create(user: user, stage: .passwordOK, client: "127.0.0.1").session
            let started = try service.start(sessionID: s.id, user: user, client: "127.0.0.1 · Firefox", address: "127.0.0.1") { _, a in
                queued(a)
            }
            return (s, started)
        }

        func approval(_ start: LoginApprovalService.Start) throws -> LoginApprovalRecord {
            guard case .started(let a, _) = start else { throw TestFailure("not started: \(start)") }
            return a
        }
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    @Test(arguments: TestEngine.all) func offeredOnlyWithTheOptionTOTPAndAPhone(engine: TestEngine) throws {
        let on = try Fixture(engine)
        #expect(try on.service.isOffered(to: on.user))
        for f in [try Fixture(engine, enabled: false), try Fixture(engine, phone: false), try Fixture(engine, totp: false)] {
            #expect(try !f.service.isOffered(to: f.user))
            #expect(try f.start().start == .unavailable)
        }
    }

    @Test(arguments: TestEngine.all) func approveThenPickUpOnce(engine: TestEngine) throws {
        let f = try Fixture(engine)
        var queued: [String] = []
        let (session, started) = try f.start { queued.append($0.id) }
        let a = try f.approval(started)
        #expect(queued == [a.id])
        #expect(a.code.count == 2 && a.expiresAt == f.clock.now + 120)
        // Posting again while it waits shows the same approval, with no second push.
        let repeated = try f.service.start(sessionID: session.id, user: f.user, client: "x", address: "x") { _, _ in
            queued.append("again")
        }
        #expect(repeated == .started(a, created: false))
        #expect(queued.count == 1)
        #expect(try f.service.pending(userID: f.user.id).map(\.id) == [a.id])
        #expect(try f.service.pending(userID: f.other.id).isEmpty)
        #expect(try f.service.pickUp(sessionID: session.id) == .waiting(a))

        // Another user's answer is "not found", like an unknown id.
        #expect(try f.service.answer(id: a.id, userID: f.other.id, code: a.code, approve: true) == .notFound)
        #expect(try f.service.answer(id: LoginApprovalRules.newID(), userID: f.user.id, code: a.code, approve: true) == .notFound)
        #expect(try f.service.answer(id: "../x", userID: f.user.id, code: a.code, approve: true) == .notFound)

        guard case .approved = try f.service.answer(id: a.id, userID: f.user.id, code: a.code, approve: true) else {
            Issue.record("not approved"); return
        }
        #expect(try f.service.pending(userID: f.user.id).isEmpty)
        #expect(try f.service.answer(id: a.id, userID: f.user.id, code: a.code, approve: true) == .ended)
        guard case .signIn(let used) = try f.service.pickUp(sessionID: session.id) else { Issue.record("no sign-in"); return }
        #expect(used.id == a.id)
        // Used once: a second pick-up does not sign in again.
        guard case .expired = try f.service.pickUp(sessionID: session.id) else { Issue.record("picked up twice"); return }
        // The waiting session is replaced by the active one: the approval outlives it, ended.
        _ = try f.sessions.activate(id: session.id)
        #expect(try f.service.answer(id: a.id, userID: f.user.id, code: a.code, approve: true) == .ended)
    }

    @Test(arguments: TestEngine.all) func wrongNumberRefusesForGood(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let (session, started) = try f.start()
        let a = try f.approval(started)
        let wrong = a.code == "42" ? "43" : "42"
        guard case .refused(let r) = try f.service.answer(id: a.id, userID: f.user.id, code: wrong, approve: true) else {
            Issue.record("not refused"); return
        }
        #expect(r.address == "127.0.0.1" && r.status == "refused")
        #expect(try f.service.answer(id: a.id, userID: f.user.id, code: a.code, approve: true) == .ended)
        guard case .refused = try f.service.pickUp(sessionID: session.id) else { Issue.record("page not refused"); return }
        // A new one may be started after the refusal.
        let again = try f.service.start(sessionID: session.id, user: f.user, client: "c", address: "a", queue: { _, _ in })
        guard case .started(let b, true) = again else { Issue.record("no new approval"); return }
        #expect(b.id != a.id)
        guard case .refused = try f.service.answer(id: b.id, userID: f.user.id, code: b.code, approve: false) else {
            Issue.record("a no is a refusal"); return
        }
    }

    @Test(arguments: TestEngine.all) func expiresWithoutAnAnswer(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let (session, started) = try f.start()
        let a = try f.approval(started)
        f.clock.advance(LoginApprovalRules.lifetime)
        #expect(try f.service.pending(userID: f.user.id).isEmpty)
        #expect(try f.service.answer(id: a.id, userID: f.user.id, code: a.code, approve: true) == .ended)
        guard case .expired = try f.service.pickUp(sessionID: session.id) else { Issue.record("not expired"); return }
    }

    @Test(arguments: TestEngine.all) func theWaitingSessionEndingEndsTheApproval(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let (session, started) = try f.start()
        let a = try f.approval(started)
        try f.sessions.delete(id: session.id)
        #expect(try f.service.pending(userID: f.user.id).isEmpty)
        #expect(try f.service.answer(id: a.id, userID: f.user.id, code: a.code, approve: true) == .ended)
    }

    @Test(arguments: TestEngine.all) func atMostFiveApprovalsPerAccountIn15Minutes(engine: TestEngine) throws {
        let f = try Fixture(engine)
        for _ in 0..<LoginApprovalRules.maxCreated {
            _ = try f.approval(try f.start().start)
            f.clock.advance(10)
        }
        guard case .tooMany(let wait) = try f.start().start else { Issue.record("no limit"); return }
        #expect(wait == LoginApprovalRules.creationWindow - 50)
        f.clock.advance(wait)
        _ = try f.approval(try f.start().start)
    }
}
