import Auth
import Core
import Crypto
import Testing
import TestSupport

/// `/settings` and `/settings/2fa` through the running binary with a
/// signed-in browser (docs/web.md): mobile push with a fake relay, API
/// tokens shown once, connected apps with their phones, two-factor set-up
/// with a TOTP computed here, and what readonly users get.
@Suite struct WebSettingsPageTests {
    @Test func mobilePushRegistersWithTheRelay() throws {
        let relay = try FakePushRelay()
        defer { relay.stop() }
        let hub = try HubProcess()
        let b = try Pages.signedIn(hub)
        let hubID = try #require(try expectJSON(try hub.call("GET", "/api/settings", token: try hub.token()))["hub_id"]?.stringValue)

        let before = try b.get("/settings")
        #expect(before.status == 200)
        #expect(before.text.contains("Mobile app") && before.text.contains("not registered") && before.text.contains(hubID))
        #expect(before.text.contains("action=\"/settings/mobile-push\""))

        let saved = try Pages.submit(b, "/settings/mobile-push", [("enabled", "true"), ("relay_url", relay.baseURL)])
        #expect(saved.status == 303 && saved.header("Location") == "/settings?flash=push-saved#mobile-app", "\(saved.text)")
        #expect(relay.registrations.first?.hubID == hubID)
        let after = try b.get("/settings?flash=push-saved")
        #expect(after.text.contains("Mobile app settings saved."))
        #expect(after.text.contains("<span class=\"status status-up\">registered</span>"))
        #expect(after.text.contains("value=\"\(relay.baseURL)\""))
        #expect(after.text.contains("<dt>Relay epoch</dt><dd>"))
        let api = try expectJSON(try hub.call("GET", "/api/settings", token: try hub.token()))
        #expect(api["mobile_push"]?["enabled"] == true && api["mobile_push"]?["registered"] == true)

        // The relay refuses a new URL: the page shows the error as the API keeps it.
        relay.failRegistrations(status: 503)
        #expect(try Pages.submit(b, "/settings/mobile-push", [("enabled", "true"), ("relay_url", relay.baseURL + "/")]).status == 303)
        let failed = try b.get("/settings")
        #expect(failed.text.contains("relay answered HTTP 503 to /v1/register") && failed.text.contains("not registered"))

        // The API's validation message, and the value typed is kept.
        let bad = try Pages.submit(b, "/settings/mobile-push", [("enabled", "true"), ("relay_url", "http://relay.example.com")])
        #expect(bad.status == 400 && bad.text.contains("mobile_push.relay_url must be an https:// URL"))
        #expect(bad.text.contains("value=\"http://relay.example.com\""))
        #expect(try b.post("/settings/mobile-push", form: [("enabled", "true"), ("relay_url", relay.baseURL)]).status == 403)
    }

    @Test func apiTokensAreShownOnceAndRevoked() throws {
        let hub = try HubProcess()
        let b = try Pages.signedIn(hub)
        let created = try Pages.submit(b, "/settings/tokens", [("name", "deploy script"), ("scope", "read")])
        #expect(created.status == 200 && created.text.contains("shown only this once"))
        #expect(created.header("Cache-Control") == "no-store")
        let token = try #require(Pages.between(created.text, "id=\"new-token\" type=\"text\" readonly value=\"", "\""))
        #expect(token.hasPrefix("pmk_"))
        #expect(try expectJSON(try hub.call("GET", "/api/me", token: token))["scope"] == "read")

        let later = try b.get("/settings")
        #expect(later.text.contains("deploy script") && !later.text.contains(token), "the secret is shown once only")
        let items = try #require(try expectJSON(try hub.call("GET", "/api/tokens", token: try hub.token()))["items"]?.arrayValue)
        let id = try #require(items.first { $0["name"] == "deploy script" }?["id"]?.intValue)

        let noName = try Pages.submit(b, "/settings/tokens", [("name", ""), ("scope", "write")])
        #expect(noName.status == 400 && noName.text.contains("name"))
        #expect(try b.post("/settings/tokens/\(id)/delete", form: []).status == 403)

        let revoked = try Pages.submit(b, "/settings/tokens/\(id)/delete", [])
        #expect(revoked.status == 303 && revoked.header("Location") == "/settings?flash=token-revoked#api-tokens")
        #expect(try hub.call("GET", "/api/me", token: token).status == 401)
        #expect(!(try b.get("/settings")).text.contains("deploy script"))
    }

    @Test func connectedAppsWithPhonesAndDisconnect() throws {
        let hub = try HubProcess()
        let oauth = OAuthEndpointTests()
        let t = try expectJSON(try oauth.exchange(hub, try oauth.mintCode(hub)))
        let access = try #require(t["access_token"]?.stringValue)
        _ = try expectJSON(try hub.call("POST", "/api/mobile/devices", token: access, json: [
            "platform": "ios", "token": "apns-token-1", "name": "Ada's iPhone", "app_version": "3.1"]), 201)

        let b = try Pages.signedIn(hub)
        let page = try b.get("/settings")
        #expect(page.text.contains("Connected apps"))
        #expect(page.text.contains("Ada&#39;s iPhone (iOS, app 3.1)"))
        #expect(page.text.contains("Scope: read write") && !page.text.contains("apns-token-1"))
        let apps = try #require(try expectJSON(try b.api("GET", "/api/connected-apps"))["items"]?.arrayValue)
        let id = try #require(apps.first?["id"]?.intValue)
        #expect(page.text.contains("action=\"/settings/connected-apps/\(id)/delete\""))

        #expect(try b.post("/settings/connected-apps/\(id)/delete", form: []).status == 403)
        let gone = try Pages.submit(b, "/settings/connected-apps/\(id)/delete", [])
        #expect(gone.status == 303 && gone.header("Location") == "/settings?flash=app-disconnected#connected-apps")
        #expect(try hub.call("GET", "/api/mobile/devices", token: access).status == 401)
        let after = try b.get("/settings?flash=app-disconnected")
        #expect(after.text.contains("App disconnected") && after.text.contains("No apps are signed in."))
    }

    @Test func twoFactorSetUpConfirmAndTurnOff() throws {
        let hub = try HubProcess()
        let b = try Pages.signedIn(hub)
        let start = try b.get("/settings/2fa")
        #expect(start.status == 200 && start.text.contains(">Set up</button>"))

        let enrolled = try Pages.submit(b, "/settings/2fa", [])
        #expect(enrolled.status == 200)
        let secret = try #require(Pages.between(enrolled.text, "Secret: <code class=\"mono\">", "</code>"))
        #expect(enrolled.text.contains("otpauth://totp/") && enrolled.text.contains(">Confirm</button>"))
        // The otpauth URI as a QR code drawn by our encoder (decoded with zbarimg in QRTests).
        #expect(enrolled.text.contains("<svg") && enrolled.text.contains("aria-label=\"QR code\""))

        let wrong = try Pages.submit(b, "/settings/2fa/confirm", [("code", "abc")])
        #expect(wrong.status == 400 && wrong.text.contains("The code is wrong or too old."))
        let totp = TOTP(secret: try #require(Base32.decode(secret)))
        let confirmed = try Pages.submit(b, "/settings/2fa/confirm", [("code", totp.code(at: Time.now()))])
        #expect(confirmed.status == 200 && confirmed.text.contains("Two-factor authentication is on."))
        let list = try #require(Pages.between(confirmed.text, "<ul class=\"codes mono\">", "</ul>"))
        #expect(Pages.count("<li>", in: list) == 10)
        let recovery = try #require(Pages.between(list, "<li>", "</li>"))
        #expect(try expectJSON(try b.api("GET", "/api/me"))["email"]?.stringValue == HubProcess.adminEmail)

        let later = try b.get("/settings/2fa")
        #expect(later.text.contains("Unused recovery codes: 10.") && !later.text.contains(recovery), "codes are shown once")
        #expect(try b.get("/settings").text.contains("<span class=\"status status-up\">on</span> <a href=\"/settings/2fa\">"))

        #expect(try b.post("/settings/2fa/disable", form: [("code", recovery)]).status == 403)
        let off = try Pages.submit(b, "/settings/2fa/disable", [("code", recovery)])
        #expect(off.status == 303 && off.header("Location") == "/settings/2fa?flash=off", "\(off.text)")
        let done = try b.get("/settings/2fa?flash=off")
        #expect(done.text.contains("Two-factor authentication is off.") && done.text.contains(">Set up</button>"))
    }

    @Test func readonlyUsersManageOnlyTheirOwnAccount() throws {
        let hub = try HubProcess()
        try Pages.addViewer(hub)
        let v = try Pages.signedIn(hub, email: "viewer@example.com", password: "viewer-password")
        let page = try v.get("/settings")
        #expect(page.status == 200 && page.text.contains("API tokens") && page.text.contains("Connected apps"))
        #expect(!page.text.contains("Mobile app") && !page.text.contains("/settings/mobile-push"), "admin-only")
        #expect(page.text.contains("Create token") && !page.text.contains("<option value=\"write\""), "read tokens only")
        #expect(!page.text.contains("href=\"/users\""), "no Users link in the nav")
        #expect(try Pages.submit(v, "/settings/mobile-push", [("enabled", "true"), ("relay_url", "https://r.example.com")]).status == 403)
        // Their own account: a read token, and two-factor authentication.
        let created = try Pages.submit(v, "/settings/tokens", [("name", "x"), ("scope", "read")])
        #expect(created.status == 200 && created.text.contains("pmk_"), "\(created.text)")
        #expect(try Pages.submit(v, "/settings/tokens", [("name", "y"), ("scope", "write")]).status == 403)
        let twoFactor = try v.get("/settings/2fa")
        #expect(twoFactor.status == 200 && twoFactor.text.contains(">Set up</button>"))
        #expect(try v.get("/users").status == 403)
        #expect(try Pages.submit(v, "/users", [("email", "x@example.com"), ("role", "admin"), ("password", "long enough pw")]).status == 403)
    }
}
