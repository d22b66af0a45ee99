import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SPEC §15 password recovery and invitations through the running binary
/// and the stand-in SMTP server: a recovery mail's link sets a new password
/// once, the old password stops working and other sessions end; an
/// invitation's link sets the first password; without `[smtp]` neither exists.
@Suite struct PasswordRecoveryE2ETests {
    let mail = NotifyEmailTests()
    static let newPassword = "a brand new horse battery"

    func hub(_ smtp: FakeSMTPServer, engine: TestEngine) throws -> HubProcess {
        try HubProcess(environment: ["PINGTXT_SMTP_HOST": "127.0.0.1", "PINGTXT_SMTP_PORT": "\(smtp.port)",
                                     "PINGTXT_SMTP_SECURITY": "none", "PINGTXT_SMTP_FROM": "pingtxt@hub.example"],
                       engine: engine)
    }

    /// The `/login/reset/<token>` path in a mail to `address`.
    func link(_ smtp: FakeSMTPServer, to address: String) throws -> String {
        let m = try #require(smtp.messages.last { $0.recipients == [address] })
        let body = mail.body(m.data)
        let start = try #require(body.firstRange(of: "/login/reset/"))
        return "/login/reset/" + String(body[start.upperBound...].prefix(43))
    }

    /// Opens the link's form and posts a password; the POST's answer.
    func setPassword(_ b: Browser, _ path: String, _ password: String, confirm: String? = nil) throws -> WireResponse {
        let form = try b.get(path)
        #expect(form.status == 200, "the form of \(path)")
        let csrf = try #require(Browser.csrfField(form.text))
        return try b.post(path, form: [("csrf_token", csrf), ("password", password), ("confirm", confirm ?? password)])
    }

    func forgot(_ b: Browser, _ email: String) throws -> WireResponse {
        let page = try b.get("/login/forgot")
        let csrf = try #require(Browser.csrfField(page.text))
        return try b.post("/login/forgot", form: [("csrf_token", csrf), ("email", email)])
    }

    @Test(arguments: TestEngine.all) func recoveryMailSetsANewPasswordOnce(engine: TestEngine) throws {
        let smtp = try #require(FakeSMTPServer(FakeSMTPServer.Config()))
        defer { smtp.stop() }
        let hub = try hub(smtp, engine: engine)
        #expect(try Browser(hub).get("/login").text.contains("href=\"/login/forgot\""))
        let signedIn = Browser(hub)
        #expect(try signedIn.login().status == 303)

        let b = Browser(hub)
        let known = try forgot(b, HubProcess.adminEmail)
        let unknown = try forgot(b, "nobody@example.com")
        #expect(known.status == 200 && known.text.contains("data-recovery-sent"))
        #expect(known.text == unknown.text, "the same page whether or not the address exists")
        mail.waitUntil("the recovery mail") { !smtp.messages.isEmpty }
        usleep(300_000)
        #expect(smtp.messages.count == 1 && smtp.messages.first?.recipients == [HubProcess.adminEmail])
        let path = try link(smtp, to: HubProcess.adminEmail)

        // Rules as elsewhere; the two fields must agree. Neither uses the link up.
        #expect(try setPassword(b, path, "short").status == 400)
        #expect(try setPassword(b, path, Self.newPassword, confirm: "something else entirely").status == 400)
        let done = try setPassword(b, path, Self.newPassword)
        #expect(done.status == 200 && done.text.contains("data-password-set"))
        #expect(try b.get(path).status == 404, "used up")
        #expect(try signedIn.get("/").status == 303, "the other session ended")
        #expect(try Browser(hub).login().status == 200, "the old password is refused (the form again)")
        #expect(try Browser(hub).login(password: Self.newPassword).status == 303)

        // Per address: the sixth request in the window is refused.
        for _ in 0..<5 { #expect(try forgot(b, "someone@example.com").status == 200) }
        #expect(try forgot(b, "someone@example.com").status == 429)
    }

    @Test(arguments: TestEngine.all) func anInvitationSetsTheFirstPassword(engine: TestEngine) throws {
        let smtp = try #require(FakeSMTPServer(FakeSMTPServer.Config()))
        defer { smtp.stop() }
        let hub = try hub(smtp, engine: engine)
        let admin = try hub.token()
        expectError(try hub.call("POST", "/api/users", token: admin, json: ["email": "x@example.com", "invite": true, "password": "abcdefghijkl"]),
                    400, "validation_failed", field: "password")
        let u = try expectJSON(try hub.call("POST", "/api/users", token: admin, json: ["email": "new@example.com", "role": "readonly",
                                                                          "invite": true]), 201)
        let id = try #require(u["id"]?.intValue)
        #expect(u["invited"] == true)
        let listed = try expectJSON(try hub.call("GET", "/api/users", token: admin))["items"]?.arrayValue ?? []
        #expect(listed.first { $0["id"]?.intValue == id }?["invited"] == true)
        #expect(listed.first { $0["email"]?.stringValue == HubProcess.adminEmail }?["invited"] == false)
        mail.waitUntil("the invitation") { smtp.messages.contains { $0.recipients == ["new@example.com"] } }
        let path = try link(smtp, to: "new@example.com")
        #expect(try Browser(hub).login(email: "new@example.com", password: Self.newPassword).status == 200, "no password yet")
        let b = Browser(hub)
        #expect(try setPassword(b, path, Self.newPassword).text.contains("data-password-set"))
        #expect(try expectJSON(try hub.call("GET", "/api/users/\(id)", token: admin))["invited"] == false)
        #expect(try Browser(hub).login(email: "new@example.com", password: Self.newPassword).status == 303)
        #expect(try b.get(path).status == 404)
    }

    @Test func withoutSMTPThereIsNoRecoveryNorInvitation() throws {
        let hub = try HubProcess()
        let admin = try hub.token()
        #expect(try Browser(hub).get("/login/forgot").status == 404)
        #expect(try Browser(hub).get("/login").text.contains("/login/forgot") == false)
        expectError(try hub.call("POST", "/api/users", token: admin, json: ["email": "x@example.com", "invite": true]), 400, "validation_failed",
                    field: "invite")
    }
}
