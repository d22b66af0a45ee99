import Core
import Testing

/// The login pages: headers, CSRF, wrong passwords, rate limits, cookies,
/// `next`, logout (SPEC §3).
@Suite struct SignInPageTests {
    static func expectPageHeaders(_ r: WireResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.header("X-Frame-Options") == "DENY", sourceLocation: sourceLocation)
        // The signed-in pages' CSP (AdminPage) lists frame-ancestors later.
        #expect(r.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true, sourceLocation: sourceLocation)
        #expect(r.header("Referrer-Policy") == "no-referrer", sourceLocation: sourceLocation)
        #expect(r.header("Cache-Control") == "no-store", sourceLocation: sourceLocation)
    }

    @Test func loginPageHeadersAndForm() throws {
        let hub = try HubProcess()
        let browser = Browser(hub)
        let r = try browser.get("/login?next=%2Fmonitors%22%3E%3Cscript%3E")
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "text/html; charset=utf-8")
        Self.expectPageHeaders(r)
        let csrf = try #require(Browser.csrfField(r.text))
        #expect(csrf.count == 43)
        let cookie = try #require(Browser.setCookies(r)["pingtxt_csrf"])
        #expect(cookie.value == csrf)
        #expect(cookie.attributes.contains("httponly") && cookie.attributes.contains("samesite=lax"))
        #expect(r.text.contains("<label for=\"email\">") && r.text.contains("<label for=\"password\">"))
        // The unsafe `next` is replaced, and nothing is reflected unescaped.
        #expect(!r.text.contains("<script>"))
        #expect(!r.text.contains("http://") && !r.text.contains("https://"))   // no third-party resources
        // Not signed in: / sends to the login page.
        let home = try browser.get("/")
        #expect(home.status == 303 && home.header("Location") == "/login?next=%2F")
    }

    @Test func csrfMissingOrWrongIsA403Page() throws {
        let hub = try HubProcess()
        let browser = Browser(hub)
        _ = try browser.get("/login")
        let creds = [("email", HubProcess.adminEmail), ("password", HubProcess.adminPassword)]
        for form in [creds, creds + [("csrf_token", "wrong")]] {
            let r = try browser.post("/login", form: form)
            #expect(r.status == 403)
            #expect(r.header("Content-Type")?.hasPrefix("text/html") == true)
            Self.expectPageHeaders(r)
            #expect(Browser.setCookies(r)["pingtxt_session"] == nil)
        }
        // The field without the cookie (a cross-site form cannot read it) fails too.
        let csrf = try #require(browser.jar["pingtxt_csrf"]?.value)
        browser.jar = [:]
        #expect(try browser.post("/login", form: creds + [("csrf_token", csrf)]).status == 403)
        // Logout is CSRF-protected as well.
        #expect(try browser.login().status == 303)
        #expect(try browser.post("/logout", form: [("csrf_token", "nope")]).status == 403)
        #expect(try browser.get("/").status == 200)
    }

    @Test func wrongPasswordShowsTheFormAgainThenRateLimits() throws {
        let hub = try HubProcess()
        let browser = Browser(hub)
        let wrong = try browser.login(password: "not the password")
        #expect(wrong.status == 200)
        #expect(wrong.text.contains("Wrong email or password."))
        #expect(Browser.setCookies(wrong)["pingtxt_session"] == nil)
        Self.expectPageHeaders(wrong)
        // What was typed is shown again, escaped.
        let hostile = try browser.login(email: "\"><script>alert(1)</script>", password: "whatever123")
        #expect(hostile.status == 200 && !hostile.text.contains("<script>"))
        #expect(hostile.text.contains("&quot;&gt;&lt;script&gt;"))
        // An unknown account gets the same answer.
        let unknown = try browser.login(email: "nobody@example.com", password: "whatever123")
        #expect(unknown.status == 200 && unknown.text.contains("Wrong email or password."))
        for _ in 0..<4 { _ = try browser.login(password: "still wrong") }
        // 5 failures for the account: even the right password now waits.
        let limited = try browser.login()
        #expect(limited.status == 429)
        let retry = try #require(Int(limited.header("Retry-After") ?? ""))
        #expect(retry > 0 && retry <= 15 * 60)
        #expect(limited.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(Browser.setCookies(limited)["pingtxt_session"] == nil)
    }

    @Test func perAddressLimitAcrossAccounts() throws {
        let hub = try HubProcess()
        let browser = Browser(hub)
        // 20 failures from one address, each on a different account (so no
        // account limit is reached), block that address for every account.
        for i in 0..<20 { _ = try browser.login(email: "guess\(i)@example.com", password: "wrong password") }
        let limited = try browser.login()
        #expect(limited.status == 429)
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0)
        Self.expectPageHeaders(limited)
    }

    @Test func signedInBrowserSkipsTheForm() throws {
        let hub = try HubProcess()
        let browser = Browser(hub)
        try browser.login()
        let r = try browser.get("/login?next=%2Foauth%2Fauthorize%3Fclient_id%3Dx")
        #expect(r.status == 303 && r.header("Location") == "/oauth/authorize?client_id=x")
        Self.expectPageHeaders(r)
    }

    @Test func loginCookieFlagsAndSafeNext() throws {
        let hub = try HubProcess()
        let cases: [(String, String)] = [
            ("/monitors?id=1", "/monitors?id=1"), ("//evil.com", "/"), ("https://evil.com", "/"),
            ("/\\evil", "/"), ("/\t/evil.com", "/"), ("evil", "/"),
        ]
        for (next, expected) in cases {
            let browser = Browser(hub)
            let r = try browser.login(next: next)
            #expect(r.status == 303, "next \(next)")
            #expect(r.header("Location") == expected, "next \(next)")
            let cookie = try #require(Browser.setCookies(r)["pingtxt_session"])
            #expect(cookie.value.count == 43)
            #expect(cookie.attributes.contains("httponly"))
            #expect(cookie.attributes.contains("samesite=lax"))
            #expect(cookie.attributes.contains("path=/"))
            #expect(!cookie.attributes.contains("secure"))
        }
    }

    @Test func secureCookieWhenPublicURLIsHTTPS() throws {
        let hub = try HubProcess(environment: ["PINGTXT_SERVER_PUBLIC_URL": "https://hub.example.com"])
        let r = try Browser(hub).login()
        #expect(r.status == 303)
        #expect(Browser.setCookies(r)["pingtxt_session"]?.attributes.contains("secure") == true)
    }

    @Test func logoutEndsTheSession() throws {
        let hub = try HubProcess()
        let browser = Browser(hub)
        try browser.login()
        let page = try browser.get("/")
        #expect(page.status == 200 && page.text.contains(HubProcess.adminEmail))
        Self.expectPageHeaders(page)
        let cookie = try #require(browser.jar["pingtxt_session"]?.value)
        let csrf = try browser.sessionCSRF()
        let out = try browser.post("/logout", form: [("csrf_token", csrf)])
        #expect(out.status == 303 && out.header("Location") == "/login")
        #expect(Browser.setCookies(out)["pingtxt_session"]?.attributes.contains("max-age=0") == true)
        // The old cookie value is dead on the server too.
        let replay = try hub.call("GET", "/api/me", headers: [("Cookie", "pingtxt_session=\(cookie)")])
        expectError(replay, 401, "unauthorized")
        #expect(try browser.get("/").status == 303)
    }
}
