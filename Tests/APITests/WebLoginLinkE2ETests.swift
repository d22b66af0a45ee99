import Auth
import Core
import Testing
import TestSupport

/// SPEC §15 "Web admin from the app" through the running binary: the app's
/// `pma_` token gets a one-time link; a browser opening it is signed in and
/// sent to `next` once, never again; a read sign-in's session cannot write;
/// other credentials get `403`; `next` stays on the hub.
@Suite struct WebLoginLinkE2ETests {
    let mobile = MobileAPITests()

    func link(_ hub: HubProcess, _ token: String, next: JSON? = nil) throws -> String {
        let body: JSON? = next.map { ["next": $0] }
        let r = try expectJSON(try hub.call("POST", "/api/mobile/web-login", token: token, json: body ?? [:]))
        #expect(r["expires_in"] == 60)
        let url = try #require(r["url"]?.stringValue)
        let base = "http://127.0.0.1:\(hub.port)/login/token/"
        #expect(url.hasPrefix(base), "\(url)")
        return String(url.dropFirst(base.count - "/login/token/".count))
    }

    @Test(arguments: TestEngine.all) func aLinkSignsInOnceAndAReadSessionCannotWrite(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let write = try mobile.signIn(hub)
        let path = try link(hub, write, next: "/notify")

        let browser = Browser(hub)
        #expect(try browser.get("/notify").status == 303, "not signed in yet")
        let opened = try browser.get(path)
        #expect(opened.status == 303 && opened.header("Location") == "/notify")
        let page = try browser.get("/notify")
        #expect(page.status == 200 && page.text.contains(HubProcess.adminEmail))
        // A write sign-in's session writes (through the API, with its CSRF token).
        let csrf = try browser.sessionCSRF()
        #expect(try browser.api("POST", "/api/messages", json: ["title": "from the browser"], csrf: csrf).status == 201)
        // Like the app's token it takes no account endpoints.
        expectError(try browser.api("POST", "/api/tokens", json: ["name": "x", "scope": "write"], csrf: csrf), 403,
                    "account_endpoint")

        // Once only: a second browser (or the same one) lands on the login page.
        let again = Browser(hub)
        let second = try again.get(path)
        #expect(second.status == 303 && second.header("Location") == "/login")
        #expect(try again.get("/notify").status == 303)

        // A read sign-in: signed in, reads, cannot write.
        let read = try mobile.signIn(hub, scope: .read)
        let reader = Browser(hub)
        #expect(try reader.get(try link(hub, read)).header("Location") == "/")
        #expect(try reader.get("/notify").status == 200)
        let readCSRF = try reader.sessionCSRF()
        #expect(try reader.api("GET", "/api/monitors").status == 200)
        expectError(try reader.api("POST", "/api/messages", json: ["title": "nope"], csrf: readCSRF), 403, "insufficient_scope")
        let form = try reader.post("/notify/channels", form: [("csrf_token", readCSRF), ("name", "x"), ("type", "webhook")])
        #expect(form.status == 403, "a page's form refuses it too")
    }

    @Test func onlyTheAppsTokenAndOnlyLocalPaths() throws {
        let hub = try HubProcess()
        expectError(try hub.call("POST", "/api/mobile/web-login", token: try hub.token(), json: [:]), 403, "sign_in_required")
        expectError(try hub.call("POST", "/api/mobile/web-login", json: [:]), 401, "unauthorized")
        let access = try mobile.signIn(hub)
        for bad in ["//evil.example", "https://evil.example/", "/\\evil.example", "notify", "/\t/evil"] {
            let b = Browser(hub)
            #expect(try b.get(try link(hub, access, next: .string(bad))).header("Location") == "/", "next \(bad)")
        }
        let b = Browser(hub)
        #expect(try b.get(try link(hub, access, next: "/monitors?x=1")).header("Location") == "/monitors?x=1")
        #expect(try Browser(hub).get("/login/token/not-a-token").header("Location") == "/login")
        expectError(try hub.call("POST", "/api/mobile/web-login", token: access, json: ["next": 5]), 400, "validation_failed",
                    field: "next")
    }
}
