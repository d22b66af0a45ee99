@testable import Auth
import Store
import Testing
import TestSupport

/// `Authenticator.cachedPrincipal`: what `authenticate` checked this second,
/// dropped by any credential change this process commits, by the next
/// second, and never holding a secret.
@Suite struct CredentialCacheTests {
    static let start: Int64 = 1_800_000_000

    struct Fixture {
        let store: TestDatabase
        let clock = TestClock(CredentialCacheTests.start)
        let auth: Authenticator
        let tokens: TokenService
        let users: UserService
        let user: UserRecord
        let token: String
        let header: String

        init(_ engine: TestEngine, scope: Scope = .write) throws {
            store = try TestDatabase(engine)
            auth = Authenticator(database: store.db, clock: clock.read)
            tokens = TokenService(database: store.db, clock: clock.read)
            users = UserService(database: store.db, clock: clock.read)
            _ = try store.user("admin@example.com")
            user = try store.db.write {
                try Users.insert($0, email: "u@example.com", name: "U", role: "admin", passwordHash: "scrypt$secret", now: 1)
            }
            token = try tokens.create(for: user, name: "t", scope: scope, expiresAt: nil).token
            header = "Bearer " + token
        }
    }

    @Test(arguments: TestEngine.all) func aCheckedTokenIsKeptForTheSecondWithoutSecrets(engine: TestEngine) throws {
        let f = try Fixture(engine)
        #expect(f.auth.cachedPrincipal(authorization: f.header) == nil, "nothing is kept before a database check")
        _ = try f.auth.authenticate(authorization: f.header)
        let kept = try #require(f.auth.cachedPrincipal(authorization: f.header))
        #expect(kept.user.id == f.user.id && kept.scope == .write && kept.role == .admin)
        #expect(kept.user.passwordHash == nil && kept.user.totpSecret == nil)
        #expect(f.auth.cachedPrincipal(authorization: "Bearer " + TokenFactory.generate(.apiToken).token) == nil)
        #expect(f.auth.cachedPrincipal(authorization: "Basic " + f.token) == nil)

        f.clock.advance(1)
        #expect(f.auth.cachedPrincipal(authorization: f.header) == nil, "kept only within the second it was checked")
        _ = try f.auth.authenticate(authorization: f.header)
        #expect(f.auth.cachedPrincipal(authorization: f.header) != nil)
    }

    @Test(arguments: TestEngine.all) func aRevokedTokenIsDroppedAtOnce(engine: TestEngine) throws {
        let f = try Fixture(engine)
        _ = try f.auth.authenticate(authorization: f.header)
        let id = try #require(try f.tokens.list(userID: f.user.id, afterID: nil, limit: 10).first?.id)
        try f.tokens.revoke(id: id, by: f.user, isAdmin: true)
        #expect(f.auth.cachedPrincipal(authorization: f.header) == nil)
        #expect(throws: AuthError.self) { try f.auth.authenticate(authorization: f.header) }
    }

    @Test(arguments: TestEngine.all) func aRoleChangeOrADeletedUserIsSeenAtOnce(engine: TestEngine) throws {
        let f = try Fixture(engine)
        _ = try f.auth.authenticate(authorization: f.header)
        _ = try f.users.update(id: f.user.id, email: nil, name: nil, role: .readonly, password: nil)
        #expect(f.auth.cachedPrincipal(authorization: f.header) == nil)
        #expect(try f.auth.authenticate(authorization: f.header).scope == .read)
        #expect(f.auth.cachedPrincipal(authorization: f.header)?.scope == .read)

        try f.users.delete(id: f.user.id)
        #expect(f.auth.cachedPrincipal(authorization: f.header) == nil)
        #expect(throws: AuthError.self) { try f.auth.authenticate(authorization: f.header) }
    }

    /// What `/api/me` keeps: an answer made from a kept caller is made once
    /// for it, and a renamed user (any credential change) or the next second
    /// gets a new caller and a new answer, never the old one.
    @Test(arguments: TestEngine.all) func answersLiveAndDieWithTheKeptCaller(engine: TestEngine) throws {
        final class Answer: Sendable {
            let name: String
            init(_ name: String) { self.name = name }
        }
        let f = try Fixture(engine)
        _ = try f.auth.authenticate(authorization: f.header)
        var made = 0
        struct NotKept: Error {}
        func answer(_ key: String = "me") throws -> Answer {
            guard let kept = f.auth.cached(authorization: f.header) else { throw NotKept() }
            guard let answer = kept.answer(key, { made += 1; return Answer(kept.principal.user.name) }) as? Answer else { throw NotKept() }
            return answer
        }
        let first = try answer()
        #expect(try answer() === first && made == 1, "made once for the kept caller")
        #expect(try answer("other") !== first && made == 2, "each key its own answer")

        _ = try f.users.update(id: f.user.id, email: nil, name: "Renamed", role: nil, password: nil)
        #expect(f.auth.cached(authorization: f.header) == nil)
        _ = try f.auth.authenticate(authorization: f.header)
        #expect(try answer().name == "Renamed" && made == 3)

        f.clock.advance(1)
        #expect(f.auth.cached(authorization: f.header) == nil)
        _ = try f.auth.authenticate(authorization: f.header)
        #expect(try answer() !== first && made == 4, "a new second, a new caller, a new answer")
    }

    @Test(arguments: TestEngine.all) func anEndedSignInDropsItsAccessToken(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let (access, hash) = TokenFactory.generate(.oauthAccess)
        let signIn = try f.store.db.write { c in
            let s = try OAuthStore.insertSignIn(c, userID: f.user.id, clientID: "app", scope: "write", now: Self.start)
            try OAuthStore.insertToken(c, hash: hash, kind: .access, signInID: s.id, scope: "write",
                                       now: Self.start, expiresAt: Self.start + 3600, codeID: nil)
            return s
        }
        _ = try f.auth.authenticate(authorization: "Bearer " + access)
        #expect(f.auth.cachedPrincipal(authorization: "Bearer " + access)?.credential == .oauthAccess(signInID: signIn.id))
        try f.store.db.write { c in _ = try OAuthStore.revokeSignIn(c, id: signIn.id, now: Self.start) }
        #expect(f.auth.cachedPrincipal(authorization: "Bearer " + access) == nil)
    }

    /// Another hub or the CLI changes the rows without this process knowing:
    /// a raw DELETE stands in for it. Seen from the next second on.
    @Test(arguments: TestEngine.all) func aChangeMadeElsewhereIsSeenTheNextSecond(engine: TestEngine) throws {
        let f = try Fixture(engine)
        _ = try f.auth.authenticate(authorization: f.header)
        try f.store.db.write { try $0.execute("DELETE FROM api_tokens WHERE user_id = ?", [.integer(f.user.id)]) }
        #expect(f.auth.cachedPrincipal(authorization: f.header) != nil, "within the second: the documented window")
        f.clock.advance(1)
        #expect(f.auth.cachedPrincipal(authorization: f.header) == nil)
        #expect(throws: AuthError.self) { try f.auth.authenticate(authorization: f.header) }
    }

    @Test(arguments: TestEngine.all) func changesAreCountedAfterTheirTransaction(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let before = f.store.db.credentialGeneration
        try f.store.db.write { c in
            _ = try Users.setPasswordHash(c, id: f.user.id, hash: "scrypt$other", now: 2)
            #expect(f.store.db.credentialGeneration == before, "not before the COMMIT")
        }
        #expect(f.store.db.credentialGeneration == before + 1)
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try f.store.db.write { c in
                _ = try Users.delete(c, id: f.user.id)
                throw Abandon()
            }
        }
        #expect(f.store.db.credentialGeneration == before + 2, "a rolled-back change is counted too")
        try f.store.db.write { c in _ = try APITokens.touch(c, id: 1, at: 3) }
        #expect(f.store.db.credentialGeneration == before + 2, "using a token changes nothing it grants")
    }

    /// Each thread keeps a copy of what it took from a cache (no lock shared
    /// between event loops); a copy must never answer for another cache.
    @Test func aThreadsCopyAnswersOnlyForItsOwnCache() {
        let user = UserRecord(id: 1, email: "a@example.com", name: "", role: "admin", passwordHash: nil, totpSecret: nil,
                              totpEnabled: false, createdAt: 0, updatedAt: 0)
        let p = Principal(user: user, role: .admin, scope: .read, credential: .apiToken(id: 1))
        let digest = CredentialCache.Digest(TokenFactory.generate(.apiToken).hash)!
        let (a, b) = (CredentialCache(), CredentialCache())
        a.keep(p, for: digest, generation: 0, now: Self.start)
        #expect(a.caller(for: digest, generation: 0, now: Self.start) != nil, "now in this thread's copy")
        #expect(b.caller(for: digest, generation: 0, now: Self.start) == nil, "not another cache's")
        #expect(a.caller(for: digest, generation: 1, now: Self.start) == nil, "a credential change, copy or not")
        #expect(a.caller(for: digest, generation: 0, now: Self.start + 1) == nil, "the next second, copy or not")
        #expect(a.caller(for: digest, generation: 0, now: Self.start) != nil, "the shared entry still holds")
        b.keep(p, for: digest, generation: 0, now: Self.start)
        #expect(b.caller(for: digest, generation: 0, now: Self.start) != nil)
        #expect(a.caller(for: digest, generation: 0, now: Self.start) != nil, "each cache its own entry")
        // Kept again in the next second: the copy from the first is not used.
        a.keep(p, for: digest, generation: 5, now: Self.start + 2)
        #expect(a.caller(for: digest, generation: 5, now: Self.start + 2)?.checkedAt == Self.start + 2)
        #expect(a.caller(for: digest, generation: 0, now: Self.start) == nil)
    }

    @Test func theCacheStaysBounded() {
        let cache = CredentialCache()
        let user = UserRecord(id: 1, email: "a@example.com", name: "", role: "admin", passwordHash: nil, totpSecret: nil,
                              totpEnabled: false, createdAt: 0, updatedAt: 0)
        let p = Principal(user: user, role: .admin, scope: .read, credential: .apiToken(id: 1))
        for i in 0..<(CredentialCache.capacity + 10) {
            let digest = CredentialCache.Digest(TokenFactory.generate(.apiToken).hash)!
            cache.keep(p, for: digest, generation: 0, now: Int64(i / 1000))
        }
        #expect(cache.count <= CredentialCache.capacity)
        let digest = CredentialCache.Digest(TokenFactory.generate(.apiToken).hash)!
        cache.keep(p, for: digest, generation: 0, now: Self.start)
        #expect(cache.caller(for: digest, generation: 0, now: Self.start) != nil)
        #expect(cache.caller(for: digest, generation: 1, now: Self.start) == nil)
    }
}
