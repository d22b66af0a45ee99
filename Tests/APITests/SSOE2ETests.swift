@testable import API
import Core
import Crypto
import Testing
import TestSupport

/// Single sign-on end to end: the real binary, a real (fake) OpenID
/// provider on loopback, and a cookie-keeping browser.
@Suite(.serialized) struct SSOE2ETests {
    private func expectNoSession(_ browser: Browser, _ hub: HubProcess, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(browser.jar["pingtxt_session"] == nil, "a session cookie was set", sourceLocation: sourceLocation)
        #expect(try browser.api("GET", "/api/me").status == 401, sourceLocation: sourceLocation)
    }

    @Test func signInCreatesTheUserAndLaterSignInsLinkToIt() throws {
        let h = try SSOHarness()
        let browser = Browser(h.hub)
        let page = try browser.get("/login")
        #expect(page.text.contains("Sign in with Fake IdP"))
        #expect(page.text.contains("action=\"/login/sso/fake\""))

        let done = try h.signIn(browser)
        #expect(done.status == 303 && done.header("Location") == "/", "\(done.status) \(done.text)\n\(h.hub.log)")
        let me = try browser.api("GET", "/api/me")
        #expect(me.status == 200)
        let id = try me.json()["id"]?.intValue
        #expect(try me.json()["email"] == "ada@example.com")
        #expect(try me.json()["role"] == "readonly")
        #expect(h.provider.tokenAuthMethods == ["client_secret_basic"])

        // Another browser, same email: the same user, no second account.
        let second = Browser(h.hub)
        #expect(try h.signIn(second).status == 303)
        #expect(try second.api("GET", "/api/me").json()["id"]?.intValue == id)
        let admin = try h.hub.token()
        let user = try h.hub.call("GET", "/api/users/\(id ?? 0)", token: admin).json()
        #expect(user["sso_provider"] == "fake" && user["password_login"] == true)
        // Tokens never reach the log.
        #expect(!h.hub.log.contains("eyJ") && !h.hub.log.contains(h.provider.clientSecret))
    }

    @Test func adminEmailsGetAdminAndPostAuthIsUsedWhenOnlyPostIsOffered() throws {
        let h = try SSOHarness()
        h.provider.configure { $0.email = "Boss@Example.com"; $0.postAuthOnly = true }
        let browser = Browser(h.hub)
        #expect(try h.signIn(browser).status == 303)
        let me = try browser.api("GET", "/api/me").json()
        #expect(me["email"] == "boss@example.com" && me["role"] == "admin")
        #expect(h.provider.tokenAuthMethods == ["client_secret_post"])

        // A member of an admin group is created as admin; other groups are not.
        h.provider.configure { $0 = FakeOIDCProvider.Knobs(); $0.email = "grace@example.com"; $0.groups = ["staff", "hub-admins"] }
        let grace = Browser(h.hub)
        #expect(try h.signIn(grace).status == 303)
        #expect(try grace.api("GET", "/api/me").json()["role"] == "admin")
        h.provider.configure { $0.email = "linus@example.com"; $0.groups = ["staff"] }
        let linus = Browser(h.hub)
        #expect(try h.signIn(linus).status == 303)
        #expect(try linus.api("GET", "/api/me").json()["role"] == "readonly")
    }

    /// The app's OAuth sign-in, with the person signing in through SSO:
    /// authorize → login page → SSO → consent → code → tokens.
    @Test func oauthAppSignInContinuesThroughSSO() throws {
        let h = try SSOHarness()
        h.provider.configure { $0.email = "admin@example.com" }   // the hub's admin: offered read + write
        let browser = Browser(h.hub)
        let verifier = Base64URL.encode(SecureRandom.bytes(32))
        let redirect = "http://127.0.0.1:49152/callback"
        let query = [("response_type", "code"), ("client_id", "pingtxt-app"), ("redirect_uri", redirect),
                     ("code_challenge", Base64URL.encode(SHA256.hash(verifier))), ("code_challenge_method", "S256"),
                     ("state", "xyz"), ("scope", "read write")]
            .map { $0.0 + "=" + FormEncode.encode($0.1) }.joined(separator: "&")
        let authorize = "/oauth/authorize?" + query
        let toLogin = try browser.get(authorize)
        let loginTarget = try #require(toLogin.header("Location"))
        #expect(loginTarget.hasPrefix("/login?next="))
        let loginPage = try browser.get(loginTarget)
        #expect(loginPage.text.contains("Sign in with Fake IdP"))
        #expect(loginPage.text.contains("name=\"next\" value=\"/oauth/authorize?"))

        let back = try h.signIn(browser, next: authorize)
        #expect(back.status == 303 && back.header("Location") == authorize, "\(back.status) \(back.text)")
        let consent = try browser.get(authorize)
        #expect(consent.status == 200)
        let csrf = try #require(Browser.csrfField(consent.text))
        let fields = [("response_type", "code"), ("client_id", "pingtxt-app"), ("redirect_uri", redirect),
                      ("code_challenge", Base64URL.encode(SHA256.hash(verifier))), ("code_challenge_method", "S256"),
                      ("state", "xyz"), ("scope", "read write")]
        let approved = try browser.post("/oauth/authorize", form: fields + [("csrf_token", csrf), ("decision", "approve"),
                                                                             ("scope_choice", "write")])
        let location = try #require(approved.header("Location"), "\(approved.status) \(approved.text)")
        #expect(location.hasPrefix(redirect + "?code="))
        let code = String(location.dropFirst((redirect + "?code=").count).prefix { $0 != "&" })
        let token = try h.hub.connect().request("POST", "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array([("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier),
                         ("client_id", "pingtxt-app"), ("redirect_uri", redirect)]
                .map { $0.0 + "=" + FormEncode.encode($0.1) }.joined(separator: "&").utf8))
        #expect(token.status == 200, "\(token.text)")
        let access = try #require(try token.json()["access_token"]?.stringValue)
        #expect(try token.json()["scope"] == "read write")
        #expect(try h.hub.call("GET", "/api/monitors", token: access).status == 200)
    }

    /// Every refusal ends on the hub's own page, below 500, with no session.
    @Test func refusalsEndOnAnErrorPageWithoutASession() throws {
        let h = try SSOHarness()
        let cases: [(String, (inout FakeOIDCProvider.Knobs) -> Void, String)] = [
            ("wrong audience", { $0.audience = "someone-else" }, "issued for another application"),
            ("azp of another client", { $0.audience = ["pingtxt-hub", "other"]; $0.azp = "other" }, "authorized party"),
            ("expired", { $0.expired = true }, "token has expired"),
            ("bad signature", { $0.badSignature = true }, "failed its signature check"),
            ("wrong nonce", { $0.wrongNonce = true }, "nonce mismatch"),
            ("unverified email", { $0.emailVerified = false }, "is not verified"),
            ("other domain", { $0.email = "eve@evil.example" }, "evil.example may not sign in"),
            ("provider down", { $0.tokenEndpointDown = true }, "could not complete the sign-in"),
        ]
        for (name, knob, message) in cases {
            h.provider.configure { $0 = FakeOIDCProvider.Knobs(); knob(&$0) }
            let browser = Browser(h.hub)
            let r = try h.signIn(browser)
            #expect((400..<500).contains(r.status), "\(name): status \(r.status)")
            #expect(r.header("Content-Type")?.hasPrefix("text/html") == true, "\(name)")
            #expect(r.text.contains(message), "\(name): \(r.text)")
            #expect(r.header("X-Frame-Options") == "DENY", "\(name)")
            try expectNoSession(browser, h.hub)
        }
        #expect(h.hub.waitForLog { $0.contains("sso: sign-in refused") && $0.contains("email_unverified") })
        #expect(!h.hub.log.contains("eyJ"), "an ID token reached the log")
    }

    @Test func stateIsSingleUseAndBoundToTheBrowser() throws {
        let h = try SSOHarness()
        let browser = Browser(h.hub)
        let target = try h.callbackTarget(browser)
        // Another browser (no binding cookie) presenting the callback is refused…
        let thief = Browser(h.hub)
        let stolen = try thief.get(target)
        #expect(stolen.status == 400 && stolen.text.contains("not started in this browser"))
        try expectNoSession(thief, h.hub)
        // …and the state is spent, so the right browser cannot reuse it either.
        let late = try browser.get(target)
        #expect(late.status == 400)
        try expectNoSession(browser, h.hub)
        // A tampered state.
        let fresh = try h.callbackTarget(browser)
        let tampered = fresh.replacingState()
        #expect(try browser.get(tampered).status == 400)
        // A provider-side error (the person pressed cancel there).
        #expect(try browser.get("/login/sso/fake/callback?error=access_denied&state=x").status == 403)
        #expect(try browser.get("/login/sso/nope").status == 404)
        try expectNoSession(browser, h.hub)
    }

    @Test func unreachableProviderIsAnErrorPage() throws {
        let h = try SSOHarness()
        h.provider.stop()
        let browser = Browser(h.hub)
        let r = try browser.get("/login/sso/fake")
        #expect(r.status == 400 && r.text.contains("Fake IdP cannot be reached right now"), "\(r.status) \(r.text)")
        try expectNoSession(browser, h.hub)
        #expect(h.hub.waitForLog { $0.contains("provider_unavailable") })
    }

    @Test func keyRotationIsPickedUpWithoutRestart() throws {
        let h = try SSOHarness()
        #expect(try h.signIn(Browser(h.hub)).status == 303)
        #expect(h.provider.jwksFetches == 1)
        #expect(h.provider.rotateKey(kid: "rsa-2"))
        let browser = Browser(h.hub)
        #expect(try h.signIn(browser).status == 303, "\(h.hub.log)")
        #expect(try browser.api("GET", "/api/me").status == 200)
        #expect(h.provider.jwksFetches == 2)
        // ES256 tokens verify with the EC key of the same set.
        h.provider.configure { $0.useEC = true }
        #expect(try h.signIn(Browser(h.hub)).status == 303)
        #expect(h.provider.jwksFetches == 2)
    }

    /// About one P-256 key in 128 has a coordinate with a leading zero byte,
    /// which authlib and several Java providers publish shorter than 32
    /// bytes: ES256 sign-in must not fail at random for them.
    @Test func es256KeyWithAShortCoordinateSignsIn() throws {
        let key = try #require(TestSigningKey(ecWithLeadingZeroCoordinate: "ec-short"))
        let h = try SSOHarness(ecKey: key)
        h.provider.configure { $0.useEC = true; $0.minimalECCoordinates = true }
        let browser = Browser(h.hub)
        let r = try h.signIn(browser)
        #expect(r.status == 303, "\(r.text)")
        #expect(try browser.api("GET", "/api/me").json()["email"] == "ada@example.com")
    }

    @Test func withoutAutoCreateOnlyExistingUsersGetIn() throws {
        let h = try SSOHarness(autoCreate: false)
        let stranger = Browser(h.hub)
        let r = try h.signIn(stranger)
        #expect(r.status == 403 && r.text.contains("There is no account for ada@example.com"))
        try expectNoSession(stranger, h.hub)
        let add = try h.hub.cli(["user", "add", "--email", "ada@example.com", "--role", "readonly", "--password-stdin"],
                                stdin: "ada password 1234\n")
        try #require(add.status == .exited(0), "\(add.stderr)")
        let known = Browser(h.hub)
        #expect(try h.signIn(known).status == 303)
        #expect(try known.api("GET", "/api/me").json()["email"] == "ada@example.com")
    }

    @Test func passwordLoginCanBeSwitchedOffForSSOUsers() throws {
        let h = try SSOHarness(autoCreate: false)
        let password = "bob password 1234"
        let add = try h.hub.cli(["user", "add", "--email", "ada@example.com", "--role", "readonly", "--password-stdin"],
                                stdin: password + "\n")
        try #require(add.status == .exited(0), "\(add.stderr)")
        #expect(try h.signIn(Browser(h.hub)).status == 303)
        let admin = try h.hub.token()
        let users = try h.hub.call("GET", "/api/users", token: admin).json()
        let id = try #require(users["items"]?.arrayValue?.first { $0["email"] == "ada@example.com" }?["id"]?.intValue)
        let patched = try h.hub.call("PATCH", "/api/users/\(id)", token: admin, json: ["password_login": false])
        let patchedJSON = try patched.json()
        #expect(patched.status == 200 && patchedJSON["password_login"] == false, "\(patched.text)")

        let browser = Browser(h.hub)
        let refused = try browser.login(email: "ada@example.com", password: password)
        #expect(refused.status == 403 && refused.text.contains("Password sign-in is turned off for this account"))
        #expect(refused.text.contains("Sign in with Fake IdP"))
        try expectNoSession(browser, h.hub)
        // The provider still signs them in; switching back on restores the password.
        #expect(try h.signIn(browser).status == 303)
        #expect(try h.hub.call("PATCH", "/api/users/\(id)", token: admin, json: ["password_login": true]).status == 200)
        #expect(try Browser(h.hub).login(email: "ada@example.com", password: password).status == 303)
    }
}

private extension String {
    /// The same callback target with a different `state` value.
    func replacingState() -> String {
        let parts = split(separator: "?", maxSplits: 1)
        guard parts.count == 2 else { return self }
        let items = parts[1].split(separator: "&").map { $0.hasPrefix("state=") ? "state=forged" : String($0) }
        return String(parts[0]) + "?" + items.joined(separator: "&")
    }
}

/// The checks on a verified ID token, one claim at a time (in process).
@Suite struct IDTokenCheckTests {
    static let now: Int64 = 1_800_000_000
    static func claims(_ changes: [(String, JSON?)] = []) -> JSONObject {
        var o = JSONObject([("iss", "https://idp.example"), ("sub", "1"), ("aud", "hub"), ("exp", .int(now + 300)),
                            ("iat", .int(now)), ("nonce", "n1"), ("email", "Ada@Example.com"), ("email_verified", true)])
        for (k, v) in changes { o[k] = v }
        return o
    }

    func check(_ c: JSONObject, domains: [String] = ["example.com"]) throws(SSORefusal) -> SSOIdentity {
        try IDTokenChecks.check(c, issuer: "https://idp.example", clientID: "hub", nonce: "n1", allowedDomains: domains, now: Self.now)
    }

    @Test func acceptsAndNormalisesTheEmail() throws {
        #expect(try check(Self.claims()).email == "ada@example.com")
        #expect(try check(Self.claims([("aud", ["other", "hub"]), ("azp", "hub")])).subject == "1")
        // Within the 60 s skew.
        #expect(throws: Never.self) { try check(Self.claims([("exp", .int(Self.now - 30)), ("iat", .int(Self.now + 30))])) }
        #expect(throws: Never.self) { try check(Self.claims(), domains: []) }
    }

    @Test func refusals() {
        let cases: [(String, [(String, JSON?)], String)] = [
            ("issuer with a trailing slash", [("iss", "https://idp.example/")], "invalid_id_token"),
            ("several audiences without azp", [("aud", ["hub", "other"])], "invalid_id_token"),
            ("empty audience list", [("aud", [])], "invalid_id_token"),
            ("no exp", [("exp", nil)], "invalid_id_token"),
            ("expired beyond skew", [("exp", .int(Self.now - 61))], "expired"),
            ("issued in the future", [("iat", .int(Self.now + 120))], "invalid_id_token"),
            ("no nonce", [("nonce", nil)], "invalid_id_token"),
            ("email_verified as a string", [("email_verified", "true")], "email_unverified"),
            ("no email", [("email", nil)], "no_email"),
            ("subdomain is not the domain", [("email", "a@sub.example.com")], "domain_not_allowed"),
            ("two @", [("email", "a@b@example.com")], "invalid_id_token"),
        ]
        for (name, changes, reason) in cases {
            do {
                _ = try check(Self.claims(changes))
                Issue.record("\(name): accepted")
            } catch {
                #expect(error.reason == reason, "\(name)")
                #expect(error.status < 500, "\(name)")
            }
        }
    }

    @Test func cacheLifetimeIsClamped() {
        #expect(OIDCProviderClient.cacheLifetime(nil) == 3600)
        #expect(OIDCProviderClient.cacheLifetime("public, max-age=7200") == 7200)
        #expect(OIDCProviderClient.cacheLifetime("no-cache, max-age=0") == 300)
        #expect(OIDCProviderClient.cacheLifetime("max-age=31536000") == 86_400)
    }
}

/// The server-side half of `state`: single use, bound to the browser, 10 minutes.
@Suite struct SSOPendingLoginTests {
    func pending(browser: String, expires: Int64) -> SSOPending {
        SSOPending(provider: "p", nonce: "n", codeVerifier: "v", next: "/", browserHash: SHA256.hash(browser), expires: expires)
    }

    @Test func singleUseBoundToTheBrowserAndExpiring() {
        let store = SSOPendingLogins()
        store.add(state: "s1", pending(browser: "b1", expires: Time.now() + 600))
        if case .failure(.otherBrowser) = store.take(state: "s1", browser: "b2") {} else { Issue.record("other browser accepted") }
        // Spent by the failed attempt: the right browser cannot use it now.
        if case .failure(.unknown) = store.take(state: "s1", browser: "b1") {} else { Issue.record("state reused") }
        store.add(state: "s2", pending(browser: "b1", expires: Time.now() - 1))
        if case .failure(.expired) = store.take(state: "s2", browser: "b1") {} else { Issue.record("expired accepted") }
        store.add(state: "s3", pending(browser: "b1", expires: Time.now() + 600))
        if case .failure(.otherBrowser) = store.take(state: "s3", browser: nil) {} else { Issue.record("no cookie accepted") }
        store.add(state: "s4", pending(browser: "b1", expires: Time.now() + 600))
        if case .success(let p) = store.take(state: "s4", browser: "b1") { #expect(p.nonce == "n") } else { Issue.record("refused") }
    }
}
