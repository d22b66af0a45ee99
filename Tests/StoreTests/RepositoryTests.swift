import Testing
import Store
import TestSupport

/// A migrated database in a fresh temp directory.
private func freshDatabase(_ engine: TestEngine) throws -> (TempDir, Database) {
    let dir = TempDir()
    return (dir, try engine.open(in: dir.path))
}

@Suite struct UsersTests {
    @Test(arguments: TestEngine.all) func insertFindCount(engine: TestEngine) throws {
        let (dir, db) = try freshDatabase(engine)
        _ = dir
        let u = try db.write { c in
            try Users.insert(c, email: "Admin@Example.com", name: "Ada", role: "admin", passwordHash: "h1", now: 100)
        }
        #expect(u.id > 0)
        #expect(u == UserRecord(id: u.id, email: "Admin@Example.com", name: "Ada", role: "admin", passwordHash: "h1",
                                totpSecret: nil, totpEnabled: false, createdAt: 100, updatedAt: 100))
        try db.read { c throws in
            #expect(try Users.find(c, id: u.id) == u)
            #expect(try Users.find(c, id: u.id + 1) == nil)
            #expect(try Users.find(c, email: "admin@example.COM") == u)
            #expect(try Users.find(c, email: "nobody@example.com") == nil)
            #expect(try Users.count(c) == 1)
            #expect(try Users.countAdmins(c) == 1)
        }
        try db.write { c throws in
            _ = try Users.insert(c, email: "r@example.com", name: "", role: "readonly", passwordHash: nil, now: 101)
        }
        try db.read { c throws in
            #expect(try Users.count(c) == 2)
            #expect(try Users.countAdmins(c) == 1)
            #expect(try Users.find(c, email: "r@example.com")?.passwordHash == nil)
        }
    }

    @Test(arguments: TestEngine.all) func listKeysetPagination(engine: TestEngine) throws {
        let (dir, db) = try freshDatabase(engine)
        _ = dir
        let ids = try db.write { c throws in
            try (0..<7).map { i throws in
                try Users.insert(c, email: "p\(i)@example.com", name: "", role: "readonly", passwordHash: nil, now: 1).id
            }
        }
        try db.read { c throws in
            let page1 = try Users.list(c, afterID: nil, limit: 3)
            #expect(page1.map(\.id) == Array(ids[0..<3]))
            let page2 = try Users.list(c, afterID: page1.last!.id, limit: 3)
            #expect(page2.map(\.id) == Array(ids[3..<6]))
            let page3 = try Users.list(c, afterID: page2.last!.id, limit: 3)
            #expect(page3.map(\.id) == [ids[6]])
            #expect(try Users.list(c, afterID: ids[6], limit: 3).isEmpty)
            #expect(try Users.list(c, afterID: nil, limit: 0).isEmpty)
            #expect(try Users.list(c, afterID: nil, limit: 100).count == 7)
        }
    }

    @Test(arguments: TestEngine.all) func updateSetPasswordDelete(engine: TestEngine) throws {
        let (dir, db) = try freshDatabase(engine)
        _ = dir
        let u = try db.write { c in
            try Users.insert(c, email: "u@example.com", name: "U", role: "admin", passwordHash: nil, now: 1)
        }
        let other = try db.write { c in
            try Users.insert(c, email: "o@example.com", name: "O", role: "admin", passwordHash: nil, now: 1)
        }
        try db.write { c throws in
            let renamed = try #require(try Users.update(c, id: u.id, name: "New", role: nil, email: nil, now: 5))
            #expect(renamed.name == "New" && renamed.role == "admin" && renamed.email == "u@example.com")
            #expect(renamed.updatedAt == 5 && renamed.createdAt == 1)
            let moved = try #require(try Users.update(c, id: u.id, name: nil, role: "readonly", email: "U2@example.com",
                                                      now: 6))
            #expect(moved.name == "New" && moved.role == "readonly" && moved.email == "U2@example.com")
            #expect(try Users.update(c, id: 9999, name: "x", role: nil, email: nil, now: 7) == nil)
        }
        // Taking another user's email → unique violation (which ends its
        // transaction: on PostgreSQL a failed statement aborts it).
        do {
            try db.write { c throws in _ = try Users.update(c, id: u.id, name: nil, role: nil, email: "O@EXAMPLE.COM", now: 8) }
            Issue.record("duplicate email accepted on update")
        } catch let error as StoreError {
            #expect(error.isUniqueViolation)
        }
        try db.write { c throws in
            #expect(try Users.setPasswordHash(c, id: u.id, hash: "scrypt$abc", now: 9))
            #expect(try Users.setPasswordHash(c, id: 9999, hash: "x", now: 9) == false)
            let reread = try #require(try Users.find(c, id: u.id))
            #expect(reread.passwordHash == "scrypt$abc" && reread.updatedAt == 9)
        }
        try db.write { c throws in
            #expect(try Users.delete(c, id: other.id))
            #expect(try Users.delete(c, id: other.id) == false)
            #expect(try Users.count(c) == 1)
        }
    }
}

@Suite struct APITokensTests {
    private func hash(_ b: UInt8) -> [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: Int($0) &* 7) ^ b } }

    @Test(arguments: TestEngine.all) func insertFindByHashListDeleteTouch(engine: TestEngine) throws {
        let (dir, db) = try freshDatabase(engine)
        _ = dir
        let (user, token) = try db.write { c throws in
            let u = try Users.insert(c, email: "t@example.com", name: "T", role: "admin", passwordHash: nil, now: 10)
            let t = try APITokens.insert(c, userID: u.id, name: "ci", scope: "write", hash: hash(1), now: 11,
                                         expiresAt: 5000)
            return (u, t)
        }
        #expect(token == APITokenRecord(id: token.id, userID: user.id, name: "ci", scope: "write", createdAt: 11,
                                        expiresAt: 5000, lastUsedAt: nil))
        try db.read { c throws in
            let found = try #require(try APITokens.findByHash(c, hash: hash(1)))
            #expect(found.token == token)
            #expect(found.user == user)
            #expect(try APITokens.findByHash(c, hash: hash(2)) == nil)
            #expect(try APITokens.find(c, id: token.id) == token)
            #expect(try APITokens.find(c, id: token.id + 100) == nil)
        }
        try db.write { c throws in
            try APITokens.touch(c, id: token.id, at: 99)
            #expect(try APITokens.find(c, id: token.id)?.lastUsedAt == 99)
        }
        // Same hash twice → unique violation; unknown user → FK constraint.
        do {
            try db.write { c throws in
                _ = try APITokens.insert(c, userID: user.id, name: "dup", scope: "read", hash: hash(1), now: 12, expiresAt: nil)
            }
            Issue.record("duplicate token hash accepted")
        } catch let error as StoreError {
            #expect(error.isUniqueViolation)
        }
        do {
            try db.write { c throws in
                _ = try APITokens.insert(c, userID: 424242, name: "orphan", scope: "read", hash: hash(3), now: 12, expiresAt: nil)
            }
            Issue.record("token for unknown user accepted")
        } catch let error as StoreError {
            #expect(error.isConstraint && !error.isUniqueViolation)
        }
        // Pagination over one user's tokens; another user's tokens never show.
        let ids = try db.write { c throws in
            let other = try Users.insert(c, email: "x@example.com", name: "", role: "admin", passwordHash: nil, now: 1)
            _ = try APITokens.insert(c, userID: other.id, name: "theirs", scope: "read", hash: hash(200), now: 1,
                                     expiresAt: nil)
            return try [token.id] + (10..<14).map { i throws in
                try APITokens.insert(c, userID: user.id, name: "t\(i)", scope: "read", hash: hash(UInt8(i)), now: 13,
                                     expiresAt: nil).id
            }
        }
        try db.read { c throws in
            let p1 = try APITokens.list(c, userID: user.id, afterID: nil, limit: 2)
            #expect(p1.map(\.id) == Array(ids[0..<2]))
            let p2 = try APITokens.list(c, userID: user.id, afterID: p1.last!.id, limit: 2)
            #expect(p2.map(\.id) == Array(ids[2..<4]))
            let p3 = try APITokens.list(c, userID: user.id, afterID: p2.last!.id, limit: 2)
            #expect(p3.map(\.id) == [ids[4]])
            #expect(try APITokens.list(c, userID: user.id, afterID: nil, limit: 50).allSatisfy { $0.userID == user.id })
        }
        try db.write { c throws in
            #expect(try APITokens.delete(c, id: token.id))
            #expect(try APITokens.delete(c, id: token.id) == false)
            #expect(try APITokens.findByHash(c, hash: hash(1)) == nil)
        }
    }

    @Test(arguments: TestEngine.all) func cascadeDeleteAndDowngrade(engine: TestEngine) throws {
        let (dir, db) = try freshDatabase(engine)
        _ = dir
        let (a, b) = try db.write { c throws in
            let a = try Users.insert(c, email: "a@example.com", name: "", role: "admin", passwordHash: nil, now: 1)
            let b = try Users.insert(c, email: "b@example.com", name: "", role: "admin", passwordHash: nil, now: 1)
            for i in 0..<3 {
                _ = try APITokens.insert(c, userID: a.id, name: "a\(i)", scope: "write", hash: hash(UInt8(i)), now: 1,
                                         expiresAt: nil)
                _ = try APITokens.insert(c, userID: b.id, name: "b\(i)", scope: i == 0 ? "read" : "write",
                                         hash: hash(UInt8(100 + i)), now: 1, expiresAt: nil)
            }
            return (a, b)
        }
        // Explicit downgrade.
        try db.write { c throws in try APITokens.downgradeToRead(c, userID: b.id) }
        #expect(try db.read { try APITokens.list($0, userID: b.id, afterID: nil, limit: 10).map(\.scope) }
                == ["read", "read", "read"])
        // Making a user readonly downgrades their tokens in the same transaction.
        _ = try db.write { try Users.update($0, id: a.id, name: nil, role: "readonly", email: nil, now: 2) }
        #expect(try db.read { try APITokens.list($0, userID: a.id, afterID: nil, limit: 10).map(\.scope) }
                == ["read", "read", "read"])
        // Deleting a user removes their tokens (ON DELETE CASCADE, foreign_keys=ON).
        #expect(try db.write { try Users.delete($0, id: a.id) })
        try db.read { c throws in
            #expect(try APITokens.list(c, userID: a.id, afterID: nil, limit: 10).isEmpty)
            #expect(try APITokens.findByHash(c, hash: hash(0)) == nil)
            #expect(try c.scalar("SELECT count(*) FROM api_tokens") == .integer(3))
        }
    }
}

@Suite struct MetaTests {
    @Test(arguments: TestEngine.all) func getSetOverwrite(engine: TestEngine) throws {
        let (dir, db) = try freshDatabase(engine)
        _ = dir
        #expect(try db.read { try Meta.get($0, "hub_id") } == nil)
        try db.write { try Meta.set($0, "hub_id", "abc") }
        #expect(try db.read { try Meta.get($0, "hub_id") } == "abc")
        try db.write { try Meta.set($0, "hub_id", "def") }
        try db.write { try Meta.set($0, "empty", "") }
        try db.read { c throws in
            #expect(try Meta.get(c, "hub_id") == "def")
            #expect(try Meta.get(c, "empty") == "")
            #expect(try c.scalar("SELECT count(*) FROM meta") == .integer(2))
        }
    }
}
