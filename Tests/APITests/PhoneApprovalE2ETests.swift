import Auth
import Core
import Crypto
import Testing
import TestSupport

/// Approving a web sign-in on the phone (SPEC §11) through the running
/// binary: an admin with TOTP on and a phone enrolled on an OAuth sign-in
/// (a real code exchange for a `pma_` token), push on with a fake relay that
/// is a real loopback server, and a browser that posts the hub's own forms.
/// Expiry is covered with a hand-moved clock in `LoginApprovalServiceTests`.
@Suite struct PhoneApprovalE2ETests {
    static let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
    let mobile = MobileAPITests()

    final class Setup {
        let relay: FakePushRelay
        let hub: HubProcess
        let admin: String
        let totp: TOTP
        /// The phone's access token (its sign-in has the enrolled device).
        var phone = ""

        init(environment: [String: String] = [:], enrollPhone: Bool = true, mobile: MobileAPITests) throws {
            relay = try FakePushRelay()
            hub = try HubProcess(environment: environment)
            admin = try hub.token()
            let s = try expectJSON(try hub.call("PATCH", "/api/settings", token: admin,
                                                json: ["mobile_push": ["enabled": true, "relay_url": .string(relay.baseURL)]]))
            #expect(s["mobile_push"]?["registered"] == true)
            let enrolled = try expectJSON(try hub.call("POST", "/api/account/2fa", token: admin))
            let secret = try #require(enrolled["secret"]?.stringValue)
            totp = TOTP(secret: try #require(Base32.decode(secret)))
            _ = try expectJSON(try hub.call("POST", "/api/account/2fa/confirm", token: admin,
                                            json: ["code": .string(totp.code(at: Time.now()))]))
            phone = try mobile.signIn(hub)
            if enrollPhone {
                _ = try expectJSON(try hub.call("POST", "/api/mobile/devices", token: phone,
                                                json: ["platform": "ios", "token": "apns-phone-1", "name": "iPhone",
                                                       "app_version": "1.0"]), 201)
            }
        }

        deinit { relay.stop() }

        /// Password right: the browser holds a waiting session on the code page.
        func passwordStep(next: String = "/settings") throws -> (browser: Browser, page: WireResponse, csrf: String) {
            let b = Browser(hub)
            let first = try b.login(next: next)
            #expect(first.status == 303 && first.header("Location") == "/login/2fa?next=" + FormEncode.encode(next))
            let page = try b.get("/login/2fa?next=" + FormEncode.encode(next))
            #expect(page.status == 200)
            return (b, page, try #require(Browser.csrfField(page.text)))
        }

        /// `POST /login/approve` from Firefox: the waiting page and its number.
        func requestApproval(_ b: Browser, csrf: String, next: String = "/settings") throws -> (page: WireResponse, code: String) {
            let r = try b.post("/login/approve", form: [("csrf_token", csrf), ("next", next)],
                               headers: [("User-Agent", PhoneApprovalE2ETests.firefox)])
            #expect(r.status == 200, "\(r.text)")
            return (r, try #require(Pages.between(r.text, "data-approval-code=\"", "\"")))
        }

        func pending(_ token: String? = nil) throws -> [JSON] {
            try #require(try expectJSON(try hub.call("GET", "/api/mobile/login-approvals", token: token ?? phone))["items"]?
                .arrayValue)
        }

        func answer(_ id: String, code: String?, approve: Bool, token: String? = nil) throws -> WireResponse {
            var body = JSONObject([("approve", .bool(approve))])
            if let code { body["code"] = .string(code) }
            return try hub.call("POST", "/api/mobile/login-approvals/\(id)", token: token ?? phone, json: .object(body))
        }

        func approvalPushes() -> [FakePushRelay.Message] {
            relay.delivered.filter { $0.aps["category"]?.stringValue == "LOGIN_APPROVAL" }
        }
    }

    static func otherCode(_ code: String) -> String { code == "42" ? "43" : "42" }

    @Test func approveOnThePhoneSignsTheBrowserIn() throws {
        let s = try Setup(mobile: mobile)
        let hubID = try #require(try expectJSON(try s.hub.call("GET", "/api/settings", token: s.admin))["hub_id"]?.stringValue)
        let (browser, codePage, csrf) = try s.passwordStep()
        #expect(codePage.text.contains("action=\"/login/approve\""))
        #expect(codePage.text.contains("name=\"code\""), "the TOTP code stays possible")

        let (waiting, code) = try s.requestApproval(browser, csrf: csrf)
        SignInPageTests.expectPageHeaders(waiting)
        #expect(code.count == 2 && (10...99).contains(Int(code) ?? 0))
        #expect(waiting.text.contains("<meta http-equiv=\"refresh\" content=\"2; url=/login/approve?next=%2Fsettings\">"))
        #expect(!waiting.text.contains("<script"))
        let pendingCookie = try #require(browser.jar["pingtxt_session"]?.value)
        expectError(try browser.api("GET", "/api/me"), 401)

        // The relay gets the request for the phone, without the number.
        Pages.waitUntil("the LOGIN_APPROVAL push") { !s.approvalPushes().isEmpty }
        let push = try #require(s.approvalPushes().first)
        #expect(push.token == "apns-phone-1" && push.kind == "alert")
        #expect(push.aps["interruption-level"]?.stringValue == "time-sensitive")
        #expect(push.payload["hub_id"]?.stringValue == hubID)
        #expect(push.payload["client"]?.stringValue == "127.0.0.1 · Firefox")
        let approvalID = try #require(push.payload["approval_id"]?.stringValue)
        #expect(approvalID.utf8.count == 22 && Base64URL.decode(approvalID)?.count == 16)
        #expect(!push.json.text.contains("\"\(code)\""))
        let expires = try #require(push.json["expires_at"]?.intValue)
        #expect(abs(expires - (Time.now() + 120)) <= 10)

        // The app's "Confirm login" list: the same approval, never the number.
        let items = try s.pending()
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(Set(item.objectValue?.keys ?? []) == ["id", "created_at", "expires_at", "client"])
        #expect(item["id"]?.stringValue == approvalID && item["client"]?.stringValue == "127.0.0.1 · Firefox")
        #expect(item["created_at"]?.stringValue?.hasSuffix("Z") == true && item["expires_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(!item.text.contains("\"\(code)\""))

        // Still waiting: the same number, and posting again sends no second push.
        let again = try browser.get("/login/approve?next=%2Fsettings")
        #expect(again.status == 200 && Pages.between(again.text, "data-approval-code=\"", "\"") == code)
        #expect(try s.requestApproval(browser, csrf: csrf).code == code)

        let approved = try expectJSON(try s.answer(approvalID, code: code, approve: true))
        #expect(approved == ["status": "approved"])
        let done = try browser.get("/login/approve?next=%2Fsettings")
        #expect(done.status == 303 && done.header("Location") == "/settings")
        SignInPageTests.expectPageHeaders(done)
        let cookie = try #require(Browser.setCookies(done)["pingtxt_session"])
        #expect(cookie.value != pendingCookie && cookie.attributes.contains("httponly"))
        let settings = try browser.get("/settings")
        #expect(settings.status == 200 && settings.text.contains(HubProcess.adminEmail))
        #expect(try expectJSON(try browser.api("GET", "/api/me"))["email"]?.stringValue == HubProcess.adminEmail)

        // Used once: the phone cannot answer it again, the old cookie is dead.
        expectError(try s.answer(approvalID, code: code, approve: true), 409, "approval_ended")
        #expect(try s.pending().isEmpty)
        let stale = try s.hub.connect().request("GET", "/login/approve", headers: [("Cookie", "pingtxt_session=\(pendingCookie)")])
        #expect(stale.status == 303 && stale.header("Location")?.hasPrefix("/login?next=") == true)
        #expect(s.approvalPushes().count == 1)
    }

    @Test func wrongNumberRefusesAndCountsAsAFailedSecondFactor() throws {
        let s = try Setup(mobile: mobile)
        let (browser, _, csrf) = try s.passwordStep(next: "/")
        let (_, code) = try s.requestApproval(browser, csrf: csrf, next: "/")
        let id = try #require(try s.pending().first?["id"]?.stringValue)
        // A malformed number changes nothing (the format is public).
        expectError(try s.answer(id, code: "4", approve: true), 400, "validation_failed", field: "code")
        expectError(try s.answer(id, code: nil, approve: true), 400, "validation_failed", field: "code")
        expectError(try s.hub.call("POST", "/api/mobile/login-approvals/\(id)", token: s.phone, json: ["code": .string(code)]),
                    400, "validation_failed", field: "approve")

        #expect(try expectJSON(try s.answer(id, code: Self.otherCode(code), approve: true)) == ["status": "refused"])
        let refused = try browser.get("/login/approve?next=%2F")
        #expect(refused.status == 200 && refused.text.contains("refused"))
        #expect(!refused.text.contains("data-approval-code"))
        expectError(try browser.api("GET", "/api/me"), 401)
        // The right number afterwards is too late: the approval is over.
        expectError(try s.answer(id, code: code, approve: true), 409, "approval_ended")
        #expect(try browser.get("/login/approve?next=%2F").status == 200)

        // Four more refusals ("no" on the phone) reach the account's limit of
        // five failed second factors: even a right TOTP code now waits.
        for _ in 0..<4 {
            _ = try s.requestApproval(browser, csrf: csrf, next: "/")
            let next = try #require(try s.pending().first?["id"]?.stringValue)
            #expect(try expectJSON(try s.answer(next, code: nil, approve: false)) == ["status": "refused"])
        }
        let limited = try browser.post("/login/2fa", form: [("csrf_token", csrf), ("next", "/"),
                                                             ("code", s.totp.code(at: Time.now()))])
        #expect(limited.status == 429 && Int(limited.header("Retry-After") ?? "") ?? 0 > 0)
        let noMore = try browser.post("/login/approve", form: [("csrf_token", csrf), ("next", "/")])
        #expect(noMore.status == 429 && !noMore.text.contains("data-approval-code"))
    }

    @Test func onlyTheUsersOwnPhoneSeesAndAnswersIt() throws {
        let s = try Setup(mobile: mobile)
        try Pages.addViewer(s.hub)
        let viewerPhone = try mobile.signIn(s.hub, email: "viewer@example.com")
        let (browser, _, csrf) = try s.passwordStep()
        let (_, code) = try s.requestApproval(browser, csrf: csrf)
        let id = try #require(try s.pending().first?["id"]?.stringValue)

        #expect(try s.pending(viewerPhone).isEmpty)
        expectError(try s.answer(id, code: code, approve: true, token: viewerPhone), 404, "not_found")
        expectError(try s.answer(LoginApprovalRules.newID(), code: code, approve: true), 404, "not_found")
        expectError(try s.answer("not-an-id", code: code, approve: true), 404, "not_found")
        // Like the device endpoints: no sign-in, no answer (an API token, the browser's own session).
        expectError(try s.answer(id, code: code, approve: true, token: s.admin), 403, "sign_in_required")
        expectError(try s.hub.call("GET", "/api/mobile/login-approvals", token: s.admin), 403, "sign_in_required")
        expectError(try s.hub.call("GET", "/api/mobile/login-approvals"), 401, "unauthorized")
        // Nothing of that touched it: the owner's phone still approves.
        #expect(try expectJSON(try s.answer(id, code: code, approve: true)) == ["status": "approved"])
        #expect(try browser.get("/login/approve?next=%2Fsettings").status == 303)
    }

    @Test func notOfferedWhenTurnedOffOrWithoutAPhone() throws {
        let off = try Setup(environment: ["PINGTXT_AUTH_PHONE_APPROVAL": "false"], mobile: mobile)
        let (browser, page, csrf) = try off.passwordStep()
        #expect(page.text.contains("name=\"code\"") && !page.text.contains("/login/approve"))
        let forced = try browser.post("/login/approve", form: [("csrf_token", csrf), ("next", "/settings")])
        #expect(forced.status == 303 && forced.header("Location") == "/login/2fa?next=%2Fsettings")
        #expect(try off.pending().isEmpty && off.approvalPushes().isEmpty)

        let noPhone = try Setup(enrollPhone: false, mobile: mobile)
        let (_, plain, _) = try noPhone.passwordStep()
        #expect(plain.status == 200 && !plain.text.contains("/login/approve"))
        // A wrong CSRF token on the approve form is refused like every form.
        #expect(try browser.post("/login/approve", form: [("csrf_token", "wrong"), ("next", "/")]).status == 403)
    }
}
