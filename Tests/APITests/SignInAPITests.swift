import Auth
import Core
import Crypto
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The session cookie on the API, CSRF on unsafe methods, 2FA enrolment and
/// login with codes, password change (SPEC §3, §7).
@Suite struct SignInAPITests {
    @Test func sessionCookieOnTheAPIAndCSRFHeader() throws {
        let hub = try HubProcess()
        let browser = Browser(hub)
        try browser.login()
        let me = try expectJSON(try browser.api("GET", "/api/me"))
        #expect(me["email"]?.stringValue == HubProcess.adminEmail)
        #expect(me["scope"]?.stringValue == "write")
        let csrf = try browser.sessionCSRF()
        // Unsafe method by cookie without (or with a wrong) X-CSRF-Token: refused.
        expectError(try browser.api("POST", "/api/tokens", json: ["name": "x"]), 403, "csrf_failed")
        expectError(try browser.api("POST", "/api/tokens", json: ["name": "x"], csrf: "wrong"), 403, "csrf_failed")
        let created = try expectJSON(try browser.api("POST", "/api/tokens", json: ["name": "x"], csrf: csrf), 201)
        #expect(created["token"]?.stringValue?.hasPrefix("pmk_") == true)
        // An Authorization header wins over the cookie (no CSRF needed for it).
        let token = try hub.token()
        var h = browser.cookieHeader
        h.append(("Authorization", "Bearer \(token)"))
        h.append(("Content-Type", "application/json"))
        let r = try hub.connect().request("POST", "/api/tokens", headers: h, body: Array("{\"name\":\"y\"}".utf8))
        #expect(r.status == 201)
        // A garbage cookie is a 401 like a bad token.
        expectError(try hub.call("GET", "/api/me", headers: [("Cookie", "pingtxt_session=abc")]), 401, "unauthorized")
    }

    @Test func readonlySessionIsRead() throws {
        let hub = try HubProcess()
        let admin = try hub.token()
        _ = try expectJSON(try hub.call("POST", "/api/users", token: admin,
                                        json: ["email": "r@example.com", "role": "readonly", "password": "readonly pass"]), 201)
        let browser = Browser(hub)
        #expect(try browser.login(email: "r@example.com", password: "readonly pass").status == 303)
        let me = try expectJSON(try browser.api("GET", "/api/me"))
        #expect(me["scope"]?.stringValue == "read")
        expectError(try browser.api("POST", "/api/monitors", json: ["name": "m", "type": "tcp", "target": "127.0.0.1:1"],
                                    csrf: try browser.sessionCSRF()), 403, "insufficient_scope")
    }

    @Test func twoFactorEnrolLoginRecoveryAndDisable() throws {
        let hub = try HubProcess()
        let admin = try hub.token()
        let enrolled = try expectJSON(try hub.call("POST", "/api/account/2fa", token: admin))
        let secret = try #require(enrolled["secret"]?.stringValue)
        let uri = try #require(enrolled["otpauth_uri"]?.stringValue)
        #expect(uri.hasPrefix("otpauth://totp/") && uri.contains("secret=\(secret)"))
        let totp = TOTP(secret: try #require(Base32.decode(secret)))
        // Not active yet: login needs only the password.
        #expect(try Browser(hub).login().header("Location") == "/")
        expectError(try hub.call("POST", "/api/account/2fa/confirm", token: admin, json: ["code": "000000"]), 400, field: "code")
        let now = Time.now()
        let confirmed = try expectJSON(try hub.call("POST", "/api/account/2fa/confirm", token: admin,
                                                    json: ["code": .string(totp.code(at: now))]))
        let codes = (confirmed["recovery_codes"]?.arrayValue ?? []).compactMap { $0.stringValue }
        try #require(codes.count == 10)
        let user = try expectJSON(try hub.call("GET", "/api/users/1", token: admin))
        #expect(user["totp_enabled"] == .bool(true))

        // Login now asks for the code; the waiting session authenticates nothing.
        let browser = Browser(hub)
        let first = try browser.login(next: "/x")
        #expect(first.status == 303 && first.header("Location") == "/login/2fa?next=%2Fx")
        expectError(try browser.api("GET", "/api/me"), 401)
        #expect(try browser.get("/").status == 303)
        let form = try browser.get("/login/2fa?next=%2Fx")
        #expect(form.status == 200 && form.text.contains("name=\"code\""))
        SignInPageTests.expectPageHeaders(form)
        let csrf = try #require(Browser.csrfField(form.text))
        let wrong = try browser.post("/login/2fa", form: [("csrf_token", csrf), ("next", "/x"), ("code", "123456")])
        #expect(wrong.status == 200 && wrong.text.contains("not valid"))
        // The confirming code's step is spent, so the same code is refused (replay).
        let replay = try browser.post("/login/2fa", form: [("csrf_token", csrf), ("next", "/x"), ("code", totp.code(at: now))])
        #expect(replay.status == 200 && replay.text.contains("not valid"))
        let pendingCookie = try #require(browser.jar["pingtxt_session"]?.value)
        let ok = try browser.post("/login/2fa", form: [("csrf_token", csrf), ("next", "/x"), ("code", codes[0])])
        #expect(ok.status == 303 && ok.header("Location") == "/x")
        // A new cookie value after the second factor; the waiting one is gone.
        #expect(browser.jar["pingtxt_session"]?.value != pendingCookie)
        #expect(try expectJSON(try browser.api("GET", "/api/me"))["email"]?.stringValue == HubProcess.adminEmail)

        // The same recovery code works only once.
        let again = Browser(hub)
        try again.login()
        let csrf2 = try #require(Browser.csrfField(try again.get("/login/2fa").text))
        let reused = try again.post("/login/2fa", form: [("csrf_token", csrf2), ("next", "/"), ("code", codes[0])])
        #expect(reused.status == 200 && reused.text.contains("not valid"))
        #expect(try again.post("/login/2fa", form: [("csrf_token", csrf2), ("next", "/"), ("code", codes[1])]).status == 303)

        // Enrolling again while on is a conflict; turning off needs a valid code.
        expectError(try hub.call("POST", "/api/account/2fa", token: admin), 409)
        expectError(try hub.call("DELETE", "/api/account/2fa", token: admin, json: ["code": .string(codes[0])]), 400, field: "code")
        #expect(try hub.call("DELETE", "/api/account/2fa", token: admin, json: ["code": .string(codes[2])]).status == 204)
        #expect(try Browser(hub).login().header("Location") == "/")
    }

    /// Whoever has the password must not get unlimited TOTP guesses by
    /// signing in again: the right password clears only password failures,
    /// and wrong codes count for the account across pending logins.
    @Test func rightPasswordAgainDoesNotResetWrongCodes() throws {
        let hub = try HubProcess()
        let admin = try hub.token()
        let secret = try #require(try expectJSON(try hub.call("POST", "/api/account/2fa", token: admin))["secret"]?.stringValue)
        let totp = TOTP(secret: try #require(Base32.decode(secret)))
        _ = try expectJSON(try hub.call("POST", "/api/account/2fa/confirm", token: admin,
                                        json: ["code": .string(totp.code(at: Time.now()))]))
        // A code that is never valid now (six digits, none of the ±1 steps).
        let valid = Set((-1...1).map { totp.code(at: Time.now() + Int64($0) * 30) })
        let wrongCode = try #require((0...9).map { String(repeating: String($0), count: 6) }.first { !valid.contains($0) })
        var lastWrong: WireResponse?
        for _ in 0..<5 {
            // Each round: the right password (a new pending login), then a wrong code.
            let browser = Browser(hub)
            #expect(try browser.login().header("Location") == "/login/2fa?next=%2F")
            let csrf = try #require(Browser.csrfField(try browser.get("/login/2fa").text))
            lastWrong = try browser.post("/login/2fa", form: [("csrf_token", csrf), ("next", "/"), ("code", wrongCode)])
            #expect(lastWrong?.status == 200)
        }
        // Five wrong codes for the account: the next attempt waits, even after
        // the right password on a fresh pending login.
        let browser = Browser(hub)
        let login = try browser.login()
        #expect(login.status == 429, "\(login.status) \(login.header("Location") ?? "")")
        #expect(Int(login.header("Retry-After") ?? "") ?? 0 > 0)
    }

    @Test func passwordChangeEndsOtherSessions() throws {
        let hub = try HubProcess()
        let here = Browser(hub), elsewhere = Browser(hub)
        try here.login()
        try elsewhere.login()
        let csrf = try here.sessionCSRF()
        expectError(try here.api("POST", "/api/account/password",
                                 json: ["current_password": "wrong one", "new_password": "new password 1"], csrf: csrf),
                    400, field: "current_password")
        expectError(try here.api("POST", "/api/account/password",
                                 json: ["current_password": .string(HubProcess.adminPassword), "new_password": "short"], csrf: csrf),
                    400, field: "new_password")
        let changed = try here.api("POST", "/api/account/password",
                                   json: ["current_password": .string(HubProcess.adminPassword), "new_password": "new password 1"],
                                   csrf: csrf)
        #expect(changed.status == 200, "\(changed.text)")
        #expect(try here.api("GET", "/api/me").status == 200)
        expectError(try elsewhere.api("GET", "/api/me"), 401)
        #expect(try Browser(hub).login(password: "new password 1").status == 303)
        #expect(try Browser(hub).login().text.contains("Wrong email or password."))
        // A password set by an admin (PATCH) or the CLI also ends the user's sessions.
        let token = try hub.token()
        let viaAPI = Browser(hub)
        try viaAPI.login(password: "new password 1")
        #expect(try hub.call("PATCH", "/api/users/1", token: token, json: ["password": "new password 2"]).status == 200)
        expectError(try viaAPI.api("GET", "/api/me"), 401)
        let viaCLI = Browser(hub)
        try viaCLI.login(password: "new password 2")
        #expect(try viaCLI.api("GET", "/api/me").status == 200)
        let out = try hub.cli(["user", "passwd", "--email", HubProcess.adminEmail, "--password-stdin"], stdin: "new password 3\n")
        #expect(out.status == .exited(0), "\(out.stderr)")
        expectError(try viaCLI.api("GET", "/api/me"), 401)
    }
}
