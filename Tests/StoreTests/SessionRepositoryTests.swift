import Testing
import Store
import TestSupport

/// `web_sessions`, `recovery_codes` and the TOTP replay marker (0003).
@Suite struct SessionRepositoryTests {
    private func fresh(_ engine: TestEngine) throws -> (TempDir, Database, UserRecord) {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let u = try db.write { try Users.insert($0, email: "a@example.com", name: "", role: "admin", passwordHash: nil, now: 1) }
        return (dir, db, u)
    }

    @Test(arguments: TestEngine.all) func sessionsByHashCascadeAndExpire(engine: TestEngine) throws {
        let (dir, db, u) = try fresh(engine)
        _ = dir
        let s = try db.write { c in
            try WebSessions.insert(c, userID: u.id, hash: [1, 2, 3], csrf: "x", stage: "active", now: 10, expiresAt: 100, client: "127.0.0.1")
        }
        let other = try db.write { c in
            try WebSessions.insert(c, userID: u.id, hash: [4], csrf: "y", stage: "password_ok", now: 10, expiresAt: 20, client: nil)
        }
        try db.read { c throws in
            let found = try #require(try WebSessions.findByHash(c, hash: [1, 2, 3]))
            #expect(found.session == s && found.user == u && found.session.isActive)
            #expect(try WebSessions.findByHash(c, hash: [9]) == nil)
        }
        // A bad stage is refused by the CHECK constraint; the hash is unique.
        #expect(throws: StoreError.self) {
            try db.write { try WebSessions.insert($0, userID: u.id, hash: [7], csrf: "", stage: "root", now: 1, expiresAt: 2, client: nil) }
        }
        #expect(throws: StoreError.self) {
            try db.write { try WebSessions.insert($0, userID: u.id, hash: [4], csrf: "", stage: "active", now: 1, expiresAt: 2, client: nil) }
        }
        #expect(try db.write { try WebSessions.deleteExpired($0, now: 30, idleBefore: 0) } == 1)
        #expect(try db.read { try WebSessions.find($0, id: other.id) } == nil)
        #expect(try db.write { try WebSessions.deleteAll($0, userID: u.id, keeping: s.id) } == 0)
        _ = try db.write { try Users.delete($0, id: u.id) }
        #expect(try db.read { try WebSessions.find($0, id: s.id) } == nil)
    }

    @Test(arguments: TestEngine.all) func recoveryCodesAreSingleUse(engine: TestEngine) throws {
        let (dir, db, u) = try fresh(engine)
        _ = dir
        try db.write { try RecoveryCodes.replace($0, userID: u.id, hashes: [[1], [2]]) }
        #expect(try db.read { try RecoveryCodes.remaining($0, userID: u.id) } == 2)
        #expect(try db.write { try RecoveryCodes.consume($0, userID: u.id, hash: [1], at: 5) })
        #expect(try !db.write { try RecoveryCodes.consume($0, userID: u.id, hash: [1], at: 6) })
        #expect(try !db.write { try RecoveryCodes.consume($0, userID: u.id, hash: [3], at: 6) })
        #expect(try db.read { try RecoveryCodes.remaining($0, userID: u.id) } == 1)
    }

    @Test(arguments: TestEngine.all) func totpStepsOnlyMoveForward(engine: TestEngine) throws {
        let (dir, db, u) = try fresh(engine)
        _ = dir
        try db.write { try RecoveryCodes.setTOTP($0, userID: u.id, secret: "ABC", enabled: true, now: 2) }
        #expect(try db.read { try Users.find($0, id: u.id) }?.totpEnabled == true)
        #expect(try db.write { try RecoveryCodes.spendTOTPStep($0, userID: u.id, step: 100) })
        #expect(try !db.write { try RecoveryCodes.spendTOTPStep($0, userID: u.id, step: 100) })
        #expect(try !db.write { try RecoveryCodes.spendTOTPStep($0, userID: u.id, step: 99) })
        #expect(try db.write { try RecoveryCodes.spendTOTPStep($0, userID: u.id, step: 101) })
    }
}
