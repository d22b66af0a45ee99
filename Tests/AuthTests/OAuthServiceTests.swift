import Auth
import Store
import Synchronization
import Testing
import TestSupport

/// SPEC §4's token rules through the service: codes, PKCE, rotation,
/// replay detection, scope narrowing and revocation.
@Suite struct OAuthServiceTests {
    func oauthError(_ body: () throws -> Any) -> OAuthError? {
        do {
            _ = try body()
            return nil
        } catch let e as OAuthError {
            return e
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test(arguments: TestEngine.all) func codeExchangeIssuesWorkingTokens(engine: TestEngine) throws {
        // RFC 7636 Appendix B: the fixture's verifier and its S256 challenge.
        #expect(OAuthFixture.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let f = try OAuthFixture(engine)
        let t = try f.tokens()
        #expect(t.accessToken.hasPrefix("pma_") && t.accessToken.count == 47)
        #expect(t.refreshToken.hasPrefix("pmr_") && t.refreshToken.count == 47)
        #expect(t.expiresIn == 3600)
        #expect(t.scope == .write && t.scope.oauthString == "read write")
        let p = try f.authenticator.authenticate(bearer: t.accessToken)
        #expect(p.user.id == f.admin.id)
        #expect(p.scope == .write)
        guard case .oauthAccess = p.credential else { Issue.record("credential"); return }
        #expect(!p.mayUseAccountEndpoints)
        // A refresh token is not a bearer token.
        #expect(!f.works(t.refreshToken))
        // redirect_uri may be left out of the token request.
        _ = try f.service.exchange(code: try f.code(), verifier: OAuthFixture.verifier, clientID: "pingtxt-app", redirectURI: nil)
    }

    @Test(arguments: TestEngine.all) func wrongVerifierClientOrRedirectIsInvalidGrant(engine: TestEngine) throws {
        let f = try OAuthFixture(engine, extraClients: [OAuthClient(id: "other", name: "Other", redirectURIs: ["https://o.example/cb"])])
        let code = try f.code()
        let wrong = String(repeating: "x", count: 43)
        #expect(oauthError { try f.service.exchange(code: code, verifier: wrong, clientID: "pingtxt-app", redirectURI: nil) }?.code == "invalid_grant")
        #expect(oauthError { try f.service.exchange(code: code, verifier: OAuthFixture.verifier, clientID: "other", redirectURI: nil) }?.code == "invalid_grant")
        #expect(oauthError { try f.service.exchange(code: code, verifier: OAuthFixture.verifier, clientID: "pingtxt-app",
                                                    redirectURI: "http://127.0.0.1:1/callback") }?.code == "invalid_grant")
        #expect(oauthError { try f.service.exchange(code: "junk", verifier: OAuthFixture.verifier, clientID: "pingtxt-app", redirectURI: nil) }?.code == "invalid_grant")
        let unknown = oauthError { try f.service.exchange(code: code, verifier: OAuthFixture.verifier, clientID: "nope", redirectURI: nil) }
        #expect(unknown?.code == "invalid_client" && unknown?.status == 401)
        #expect(oauthError { try f.service.exchange(code: code, verifier: "short", clientID: "pingtxt-app", redirectURI: nil) }?.code == "invalid_request")
        #expect(oauthError { try f.service.exchange(code: nil, verifier: OAuthFixture.verifier, clientID: "pingtxt-app", redirectURI: nil) }?.code == "invalid_request")
        #expect(oauthError { try f.service.exchange(code: code, verifier: nil, clientID: "pingtxt-app", redirectURI: nil) }?.code == "invalid_request")
        // The failed attempts did not consume it: the rightful client still can.
        _ = try f.service.exchange(code: code, verifier: OAuthFixture.verifier, clientID: "pingtxt-app", redirectURI: OAuthFixture.redirect)
    }

    @Test(arguments: TestEngine.all) func secondUseOfACodeFailsAndRevokesWhatItIssued(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        let code = try f.code()
        let t = try f.service.exchange(code: code, verifier: OAuthFixture.verifier, clientID: "pingtxt-app", redirectURI: nil)
        #expect(f.works(t.accessToken))
        #expect(oauthError { try f.service.exchange(code: code, verifier: OAuthFixture.verifier, clientID: "pingtxt-app", redirectURI: nil) }?.code == "invalid_grant")
        #expect(!f.works(t.accessToken))
        #expect(oauthError { try f.service.refresh(token: t.refreshToken, clientID: "pingtxt-app", scope: nil) }?.code == "invalid_grant")
        #expect(try f.service.signIns(userID: f.admin.id, afterID: nil, limit: 10).isEmpty)
    }

    @Test(arguments: TestEngine.all) func codeExpiresAfterSixtySeconds(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        let fresh = try f.code()
        f.clock.advance(59)
        _ = try f.service.exchange(code: fresh, verifier: OAuthFixture.verifier, clientID: "pingtxt-app", redirectURI: nil)
        let old = try f.code()
        f.clock.advance(60)
        #expect(oauthError { try f.service.exchange(code: old, verifier: OAuthFixture.verifier, clientID: "pingtxt-app", redirectURI: nil) }?.code == "invalid_grant")
    }

    @Test(arguments: TestEngine.all) func accessTokenLastsAnHour(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        let t = try f.tokens()
        f.clock.advance(3599)
        #expect(f.works(t.accessToken))
        f.clock.advance(1)
        #expect(!f.works(t.accessToken))
    }

    @Test(arguments: TestEngine.all) func refreshRotatesAndReplayRevokesTheWholeSignIn(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        let first = try f.tokens()
        let second = try f.service.refresh(token: first.refreshToken, clientID: "pingtxt-app", scope: nil)
        #expect(second.refreshToken != first.refreshToken && second.accessToken != first.accessToken)
        #expect(second.scope == .write)
        #expect(f.works(first.accessToken) && f.works(second.accessToken))
        // The rotated token again: invalid_grant, and every token of the sign-in dies.
        #expect(oauthError { try f.service.refresh(token: first.refreshToken, clientID: "pingtxt-app", scope: nil) }?.code == "invalid_grant")
        #expect(!f.works(first.accessToken) && !f.works(second.accessToken))
        #expect(oauthError { try f.service.refresh(token: second.refreshToken, clientID: "pingtxt-app", scope: nil) }?.code == "invalid_grant")
    }

    @Test(arguments: TestEngine.all) func refreshTokenLivesThirtyDaysFromLastUse(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        var t = try f.tokens()
        for _ in 0..<3 {   // used every 29 days, it keeps working past 30 days
            f.clock.advance(29 * 86400)
            t = try f.service.refresh(token: t.refreshToken, clientID: "pingtxt-app", scope: nil)
        }
        f.clock.advance(30 * 86400)
        #expect(oauthError { try f.service.refresh(token: t.refreshToken, clientID: "pingtxt-app", scope: nil) }?.code == "invalid_grant")
    }

    @Test(arguments: TestEngine.all) func concurrentRefreshesWithOneTokenSucceedAtMostOnce(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        for _ in 0..<10 {
            let t = try f.tokens()
            let successes = Atomic<Int>(0)
            raceOnThreads(2) { _ in
                if (try? f.service.refresh(token: t.refreshToken, clientID: "pingtxt-app", scope: nil)) != nil {
                    successes.add(1, ordering: .sequentiallyConsistent)
                }
            }
            #expect(successes.load(ordering: .sequentiallyConsistent) <= 1)
        }
    }

    /// The same race between two separate database handles on one file (as
    /// two processes would be): SQLite's locking plus the compare-and-set
    /// still let at most one through.
    @Test(arguments: TestEngine.all) func concurrentRefreshesAcrossTwoConnectionsSucceedAtMostOnce(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        let second = try Database(url: f.database.url)
        defer { second.close() }
        let clock = f.clock
        let services = [f.service, OAuthService(database: second, clock: { clock.now })]
        for _ in 0..<10 {
            let t = try f.tokens()
            let successes = Atomic<Int>(0)
            raceOnThreads(2) { i in
                if (try? services[i].refresh(token: t.refreshToken, clientID: "pingtxt-app", scope: nil)) != nil {
                    successes.add(1, ordering: .sequentiallyConsistent)
                }
            }
            #expect(successes.load(ordering: .sequentiallyConsistent) <= 1)
        }
    }

    @Test(arguments: TestEngine.all) func scopeNarrowsButNeverWidens(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        let t = try f.tokens(scope: .write)
        let narrow = try f.service.refresh(token: t.refreshToken, clientID: "pingtxt-app", scope: "read")
        #expect(narrow.scope == .read)
        #expect(try f.authenticator.authenticate(bearer: narrow.accessToken).scope == .read)
        // The next refresh without scope is back to what was consented.
        let back = try f.service.refresh(token: narrow.refreshToken, clientID: "pingtxt-app", scope: nil)
        #expect(back.scope == .write)
        #expect(oauthError { try f.service.refresh(token: back.refreshToken, clientID: "pingtxt-app", scope: "admin") }?.code == "invalid_scope")

        let readOnly = try f.tokens(scope: .read)
        #expect(readOnly.scope == .read)
        #expect(oauthError { try f.service.refresh(token: readOnly.refreshToken, clientID: "pingtxt-app", scope: "read write") }?.code == "invalid_scope")
    }

    @Test(arguments: TestEngine.all) func readonlyUserAlwaysGetsRead(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        let t = try f.tokens(for: f.viewer, scope: .write)
        #expect(t.scope == .read)
        #expect(try f.authenticator.authenticate(bearer: t.accessToken).scope == .read)
        #expect(oauthError { try f.service.refresh(token: t.refreshToken, clientID: "pingtxt-app", scope: "write") }?.code == "invalid_scope")
        #expect(try f.service.signIns(userID: f.viewer.id, afterID: nil, limit: 10).first?.signIn.scope == "read")
    }

    @Test(arguments: TestEngine.all) func revokingEitherTokenEndsTheSignIn(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        let a = try f.tokens()
        try f.service.revoke(token: a.accessToken)
        #expect(!f.works(a.accessToken))
        #expect(oauthError { try f.service.refresh(token: a.refreshToken, clientID: "pingtxt-app", scope: nil) }?.code == "invalid_grant")

        let b = try f.tokens()
        try f.service.revoke(token: b.refreshToken)
        #expect(!f.works(b.accessToken))
        // Junk, repeats and other kinds are silently fine (RFC 7009 §2.2).
        try f.service.revoke(token: b.refreshToken)
        try f.service.revoke(token: "junk")
        try f.service.revoke(token: "pmk_" + String(repeating: "A", count: 43))
    }

    @Test(arguments: TestEngine.all) func connectedAppsAreListedAndRevokedByOwnerOrAdmin(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        _ = try f.tokens(for: f.admin)
        let viewerTokens = try f.tokens(for: f.viewer)
        let mine = try f.service.signIns(userID: f.viewer.id, afterID: nil, limit: 10)
        #expect(mine.count == 1 && mine[0].signIn.clientID == "pingtxt-app" && mine[0].user.email == "viewer@example.com")
        #expect(try f.service.signIns(userID: nil, afterID: nil, limit: 10).count == 2)
        let adminSignIn = try #require(f.service.signIns(userID: f.admin.id, afterID: nil, limit: 10).first)
        #expect(throws: AuthError.self) { try f.service.revokeSignIn(id: adminSignIn.signIn.id, by: f.viewer, isAdmin: false) }
        try f.service.revokeSignIn(id: mine[0].signIn.id, by: f.admin, isAdmin: true)
        #expect(!f.works(viewerTokens.accessToken))
        #expect(throws: AuthError.self) { try f.service.revokeSignIn(id: mine[0].signIn.id, by: f.admin, isAdmin: true) }
        #expect(try f.service.signIns(userID: nil, afterID: nil, limit: 10).count == 1)
    }

    @Test(arguments: TestEngine.all) func anUnexchangedCodeIsNotAConnectedApp(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        _ = try f.code()
        #expect(try f.service.signIns(userID: nil, afterID: nil, limit: 10).isEmpty)
        _ = try f.tokens()
        #expect(try f.service.signIns(userID: nil, afterID: nil, limit: 10).count == 1)
    }

    @Test(arguments: TestEngine.all) func lastUsedIsRecordedAtMostOnceAMinute(engine: TestEngine) throws {
        let f = try OAuthFixture(engine)
        let t = try f.tokens()
        let start = try #require(f.service.signIns(userID: nil, afterID: nil, limit: 1).first?.signIn.lastUsedAt)
        f.clock.advance(10)
        _ = try f.authenticator.authenticate(bearer: t.accessToken)
        let first = try #require(f.service.signIns(userID: nil, afterID: nil, limit: 1).first?.signIn.lastUsedAt)
        #expect(first == start + 10)
        f.clock.advance(30)
        _ = try f.authenticator.authenticate(bearer: t.accessToken)
        #expect(try f.service.signIns(userID: nil, afterID: nil, limit: 1).first?.signIn.lastUsedAt == first)
        f.clock.advance(31)
        _ = try f.authenticator.authenticate(bearer: t.accessToken)
        #expect(try f.service.signIns(userID: nil, afterID: nil, limit: 1).first?.signIn.lastUsedAt == first + 61)
    }
}
