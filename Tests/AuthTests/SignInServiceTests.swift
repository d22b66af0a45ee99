import Auth
import Crypto
import Store
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var now: Int64 { value.withLock { $0 } }
    func advance(_ seconds: Int64) { value.withLock { $0 += seconds } }
    var read: @Sendable () -> Int64 { { [self] in self.now } }
}

/// A migrated database in a fresh directory, removed on deinit.
final class TestDatabase {
    let dir: String
    let db: Database
    init(_ engine: TestEngine) throws {
        var template = Array("/tmp/pingtxt-auth-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        dir = String(cString: p!)
        db = try engine.open(in: dir, readers: 4)
    }
    deinit {
        db.close()
        for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink(dir + "/" + f) }
        rmdir(dir)
    }
    func user(_ email: String = "a@example.com") throws -> UserRecord {
        try db.write { try Users.insert($0, email: email, name: "", role: "admin", passwordHash: nil, now: 1) }
    }
}

@Suite struct LoginRateLimiterTests {
    @Test func perAccountLimitThenWindowSlides() {
        let clock = TestClock(1_000)
        let limiter = LoginRateLimiter(limits: .init(perAccount: 3, perAddress: 100, window: 60), clock: clock.read)
        for _ in 0..<3 {
            #expect(limiter.retryAfter(account: "A@x.com", address: "1.1.1.1") == nil)
            limiter.recordFailure(account: "A@x.com", address: "1.1.1.1")
            clock.advance(10)
        }
        // Case does not matter; the first failure (at 1000) frees up at 1060.
        #expect(limiter.retryAfter(account: "a@x.com", address: "2.2.2.2") == 30)
        #expect(limiter.retryAfter(account: "b@x.com", address: "1.1.1.1") == nil)
        clock.advance(30)
        #expect(limiter.retryAfter(account: "a@x.com", address: "1.1.1.1") == nil)
    }

    @Test func perAddressLimitAndSuccessClearsOnlyTheAccount() {
        let clock = TestClock(0)
        let limiter = LoginRateLimiter(limits: .init(perAccount: 2, perAddress: 3, window: 100), clock: clock.read)
        limiter.recordFailure(account: "a", address: "9.9.9.9")
        limiter.recordFailure(account: "a", address: "9.9.9.9")
        #expect(limiter.retryAfter(account: "a", address: "8.8.8.8") == 100)
        limiter.recordSuccess(account: "a")
        #expect(limiter.retryAfter(account: "a", address: "8.8.8.8") == nil)
        limiter.recordFailure(account: "b", address: "9.9.9.9")
        #expect(limiter.retryAfter(account: "c", address: "9.9.9.9") == 100)
    }

    @Test func passwordSuccessKeepsSecondFactorFailures() {
        let clock = TestClock(0)
        let limiter = LoginRateLimiter(limits: .init(perAccount: 2, perAddress: 100, window: 100), clock: clock.read)
        limiter.recordFailure(account: "a", address: "1.1.1.1", factor: .secondFactor)
        limiter.recordSuccess(account: "a")
        limiter.recordFailure(account: "a", address: "2.2.2.2", factor: .secondFactor)
        limiter.recordSuccess(account: "a")
        // Two wrong codes from two pending logins: the account waits.
        #expect(limiter.retryAfter(account: "A", address: "3.3.3.3") == 100)
        // The whole sign-in succeeding (second factor) clears both lists.
        limiter.recordSuccess(account: "a", factor: .secondFactor)
        #expect(limiter.retryAfter(account: "a", address: "3.3.3.3") == nil)
        limiter.recordFailure(account: "a", address: "1.1.1.1")
        limiter.recordFailure(account: "a", address: "1.1.1.1")
        limiter.recordSuccess(account: "a", factor: .secondFactor)
        #expect(limiter.retryAfter(account: "a", address: "1.1.1.1") == nil)
    }
}

@Suite struct SessionServiceTests {
    @Test(arguments: TestEngine.all) func idleAndAbsoluteExpiry(engine: TestEngine) throws {
        let t = try TestDatabase(engine)
        let u = try t.user()
        let clock = TestClock(1_000_000)
        let sessions = SessionService(database: t.db, clock: clock.read)
        let (record, token, csrf) = try sessions.create(user: u, stage: .active, client: "127.0.0.1")
        #expect(token.utf8.count == 43 && csrf.utf8.count == 43 && token != csrf)
        #expect(sessions.find(cookieValue: token)?.session.id == record.id)
        // One character changed (a fixed "x" would change nothing for a token starting with it).
        let tampered = (token.first == "x" ? "y" : "x") + token.dropFirst()
        #expect(tampered != token && sessions.find(cookieValue: tampered) == nil)
        #expect(sessions.find(cookieValue: "short") == nil)
        // Use every 11 hours keeps it alive (sliding) ...
        while clock.now + 11 * 3600 < 1_000_000 + SessionService.absoluteLifetime {
            clock.advance(11 * 3600)
            #expect(sessions.find(cookieValue: token) != nil)
        }
        // ... but never past 7 days.
        clock.advance(11 * 3600)
        #expect(sessions.find(cookieValue: token) == nil)

        let second = try sessions.create(user: u, stage: .active, client: nil)
        clock.advance(SessionService.idleTimeout)
        #expect(sessions.find(cookieValue: second.token) == nil)
    }

    @Test(arguments: TestEngine.all) func activateRotatesAndDeleteAllKeepsOne(engine: TestEngine) throws {
        let t = try TestDatabase(engine)
        let u = try t.user()
        let clock = TestClock(5_000)
        let sessions = SessionService(database: t.db, clock: clock.read)
        let pending = try sessions.create(user: u, stage: .passwordOK, client: nil)
        #expect(sessions.find(cookieValue: pending.token)?.session.isActive == false)
        let active = try #require(try sessions.activate(id: pending.session.id))
        #expect(active.session.isActive && active.token != pending.token)
        #expect(sessions.find(cookieValue: pending.token) == nil)
        let other = try sessions.create(user: u, stage: .active, client: nil)
        #expect(try sessions.deleteAll(userID: u.id, keeping: active.session.id) == 1)
        #expect(sessions.find(cookieValue: other.token) == nil)
        #expect(sessions.find(cookieValue: active.token) != nil)
        // A waiting session expires after 10 minutes.
        let late = try sessions.create(user: u, stage: .passwordOK, client: nil)
        clock.advance(SessionService.pendingLifetime)
        #expect(sessions.find(cookieValue: late.token) == nil)
    }
}

@Suite struct TwoFactorServiceTests {
    @Test(arguments: TestEngine.all) func enrolConfirmStepReuseAndRecoveryCodes(engine: TestEngine) throws {
        let t = try TestDatabase(engine)
        let u = try t.user()
        let clock = TestClock(1_700_000_000)
        let twoFactor = TwoFactorService(database: t.db, issuer: "pingtxt hub", clock: clock.read)
        let (secret, uri) = try twoFactor.enroll(userID: u.id)
        #expect(uri.hasPrefix("otpauth://totp/pingtxt%20hub:a%40example.com?secret=\(secret)"))
        let totp = TOTP(secret: try #require(Base32.decode(secret)))
        // Not on before confirmation; a wrong code does not confirm.
        #expect(try !twoFactor.verify(userID: u.id, code: totp.code(at: clock.now)))
        #expect(throws: AuthError.self) { try twoFactor.confirm(userID: u.id, code: "000000") }
        let codes = try twoFactor.confirm(userID: u.id, code: totp.code(at: clock.now))
        #expect(codes.count == 10 && Set(codes).count == 10)
        #expect(codes.allSatisfy { $0.count == 19 })
        // The confirming code's step is spent: the same code cannot log in.
        #expect(try !twoFactor.verify(userID: u.id, code: totp.code(at: clock.now)))
        clock.advance(30)
        let next = totp.code(at: clock.now)
        #expect(try twoFactor.verify(userID: u.id, code: next))
        #expect(try !twoFactor.verify(userID: u.id, code: next))   // replay refused
        // An older step (still inside ±1) is refused once a newer one was used.
        #expect(try !twoFactor.verify(userID: u.id, code: totp.code(at: clock.now - 30)))
        // Recovery codes: once each, case and dashes free.
        #expect(try twoFactor.verify(userID: u.id, code: codes[0].uppercased().replacingDashes()))
        #expect(try !twoFactor.verify(userID: u.id, code: codes[0]))
        #expect(try twoFactor.remainingRecoveryCodes(userID: u.id) == 9)
        #expect(throws: AuthError.self) { _ = try twoFactor.enroll(userID: u.id) }
        // Turning it off needs a valid code.
        #expect(throws: AuthError.self) { try twoFactor.disable(userID: u.id, code: codes[0]) }
        try twoFactor.disable(userID: u.id, code: codes[1])
        #expect(try twoFactor.remainingRecoveryCodes(userID: u.id) == 0)
        #expect(try !twoFactor.verify(userID: u.id, code: codes[2]))
    }
}

extension String {
    func replacingDashes() -> String { String(filter { $0 != "-" }) }
}
