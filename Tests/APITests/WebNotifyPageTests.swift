import Core
import Testing
import TestSupport

/// `/notify` through the running binary with a signed-in browser
/// (docs/web.md): add a webhook channel through the form, "Send test" to a
/// real loopback receiver, the API's validation messages, CSRF, readonly
/// users and HTML escaping.
@Suite struct WebNotifyPageTests {
    func channels(_ hub: HubProcess) throws -> [JSON] {
        try #require(try expectJSON(try hub.call("GET", "/api/channels", token: try hub.token()))["items"]?.arrayValue)
    }

    @Test func addWebhookSendTestAndDelete() throws {
        let receiver = try RecordingHTTPReceiver()
        let hub = try HubProcess()
        let b = try Pages.signedIn(hub)

        let empty = try b.get("/notify")
        #expect(empty.status == 200 && empty.text.contains("No channels yet."))
        // Every type's fields are on the one form, labelled, with the type select and events.
        for key in ["url", "secret", "headers", "webhook_url", "bot_token", "chat_id", "topic", "token", "to", "users"] {
            #expect(empty.text.contains("name=\"config.\(key)\""), "config.\(key)")
            #expect(empty.text.contains("<label for=\"config-\(key)\""), "label of config.\(key)")
        }
        #expect(empty.text.contains("<select id=\"channel-type\" name=\"type\">"))
        #expect(empty.text.contains("name=\"config.url\" type=\"text\" inputmode=\"url\""))
        #expect(empty.text.contains("name=\"events\" value=\"monitor_down\" checked"))
        #expect(empty.text.contains("<script src=\"/static/notify.js\" defer></script>"))
        #expect(try b.get("/static/notify.js").status == 200)

        let added = try Pages.submit(b, "/notify/channels", [
            ("name", "ops hook"), ("type", "webhook"), ("events", "monitor_down"), ("events", "agent_offline"),
            ("config.url", receiver.baseURL + "/hook"), ("config.secret", "s3cret-value"),
            ("config.headers", "X-Team: ops"), ("config.webhook_url", "https://ignored.example.com/x"),
        ])
        #expect(added.status == 303 && added.header("Location") == "/notify?flash=added", "\(added.status) \(added.text)")
        let list = try channels(hub)
        #expect(list.count == 1)
        let channel = try #require(list.first)
        let id = try #require(channel["id"]?.intValue)
        #expect(channel["events"] == ["monitor_down", "agent_offline"])
        #expect(channel["config"]?["headers"] == ["X-Team": "ops"])
        #expect(channel["config"]?["webhook_url"] == nil, "only the chosen type's fields are used")

        let page = try b.get("/notify?flash=added")
        #expect(page.text.contains("Channel added."))
        #expect(page.text.contains("ops hook") && page.text.contains("Webhook") && page.text.contains("monitor_down, agent_offline"))
        #expect(page.text.contains("********") && !page.text.contains("s3cret-value"), "secrets are masked")
        #expect(page.text.contains("0 sent, 0 failed, 0 pending"))

        let test = try Pages.submit(b, "/notify/channels/\(id)/test", [])
        #expect(test.status == 303 && test.header("Location") == "/notify?flash=test")
        Pages.waitUntil("the test notification") { receiver.received.count == 1 }
        let got = try #require(receiver.received.first)
        #expect(got.path == "/hook" && got.header("X-Team") == "ops")
        #expect((try? JSON.parse(got.body))?["event"]?.stringValue == "test")
        try Pages.waitUntil("the delivery count") { try b.get("/notify").text.contains("1 sent, 0 failed, 0 pending") }

        let deleted = try Pages.submit(b, "/notify/channels/\(id)/delete", [])
        #expect(deleted.status == 303 && deleted.header("Location") == "/notify?flash=deleted")
        #expect(try channels(hub).isEmpty)
        #expect(try Pages.submit(b, "/notify/channels/\(id)/delete", []).status == 404)
    }

    @Test func validationCSRFEscapingAndReadonly() throws {
        let hub = try HubProcess()
        let b = try Pages.signedIn(hub)

        // The API's message, naming the field; what was typed stays (secrets do not).
        let bad = try Pages.submit(b, "/notify/channels", [
            ("name", "kept name"), ("type", "webhook"), ("events", "monitor_up"), ("config.url", "ftp://x.example.com"),
            ("config.secret", "typed-secret"),
        ])
        #expect(bad.status == 400)
        #expect(bad.text.contains("config.url must be an http:// or https:// URL."))
        #expect(bad.text.contains("value=\"kept name\"") && bad.text.contains("value=\"ftp://x.example.com\""))
        #expect(bad.text.contains("name=\"events\" value=\"monitor_up\" checked"))
        #expect(!bad.text.contains("name=\"events\" value=\"monitor_down\" checked"))
        #expect(!bad.text.contains("typed-secret"))
        let missing = try Pages.submit(b, "/notify/channels", [("name", "t"), ("type", "telegram"), ("config.chat_id", "42")])
        #expect(missing.status == 400 && missing.text.contains("config.bot_token"))
        #expect(try channels(hub).isEmpty)

        // No CSRF token, or a wrong one: 403, nothing written.
        let form = [("name", "x"), ("type", "slack"), ("config.webhook_url", "https://hooks.example.com/1")]
        #expect(try b.post("/notify/channels", form: form).status == 403)
        #expect(try b.post("/notify/channels", form: [("csrf_token", "forged")] + form).status == 403)
        #expect(try channels(hub).isEmpty)
        // Not signed in: to the login page, then back to /notify.
        let anonymous = try Browser(hub).post("/notify/channels", form: form)
        #expect(anonymous.status == 303 && anonymous.header("Location") == "/login?next=%2Fnotify")
        #expect(try Browser(hub).get("/notify").header("Location") == "/login?next=%2Fnotify")

        // A name that is markup shows as text.
        let script = try Pages.submit(b, "/notify/channels", [("name", "<script>alert(1)</script>"), ("type", "slack"),
                                                              ("config.webhook_url", "https://hooks.example.com/1")])
        #expect(script.status == 303)
        let page = try b.get("/notify")
        #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!page.text.contains("<script>alert(1)"))
        let id = try #require(try channels(hub).first?["id"]?.intValue)

        // A readonly user sees the channels but no forms that write, and gets 403 on POST.
        try Pages.addViewer(hub)
        let viewer = try Pages.signedIn(hub, email: "viewer@example.com", password: "viewer-password")
        let seen = try viewer.get("/notify")
        #expect(seen.status == 200 && seen.text.contains("&lt;script&gt;"))
        #expect(!seen.text.contains("Add channel") && !seen.text.contains("action=\"/notify/channels"))
        #expect(!seen.text.contains("Send test"))
        #expect(try Pages.submit(viewer, "/notify/channels", form).status == 403)
        #expect(try Pages.submit(viewer, "/notify/channels/\(id)/test", []).status == 403)
        #expect(try Pages.submit(viewer, "/notify/channels/\(id)/delete", []).status == 403)
        #expect(try channels(hub).count == 1)

        // List fields: addresses separated by commas, spaces or line breaks.
        let email = try Pages.submit(b, "/notify/channels", [("name", "mail"), ("type", "email"), ("events", "expiry"),
                                                             ("config.to", "a@example.com, b@example.com\nc@example.com")])
        #expect(email.status == 303)
        let mail = try #require(try channels(hub).first { $0["name"] == "mail" })
        #expect(mail["config"]?["to"] == ["a@example.com", "b@example.com", "c@example.com"] && mail["events"] == ["expiry"])
    }
}
