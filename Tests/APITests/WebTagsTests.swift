import Core
import Testing
import TestSupport

/// Tags on the web pages (docs/web.md): the new-monitor form's field and
/// the dashboard's tag links and filter.
@Suite struct WebTagsTests {
    @Test func formTakesTagsAndDashboardFiltersByThem() throws {
        let target = try SwitchableHTTPTarget()
        let hub = try HubProcess()
        let browser = Browser(hub)
        #expect(try browser.login().status == 303)
        let csrf = try browser.sessionCSRF()
        #expect(try browser.get("/monitors/new").text.contains("<label for=\"tags\">"))

        func create(_ name: String, _ tags: String) throws -> WireResponse {
            try browser.post("/monitors", form: [("csrf_token", csrf), ("name", name), ("type", "http"), ("target", target.healthURL),
                                                 ("tags", tags), ("interval", "3600"), ("timeout", "5"), ("retries", "0")])
        }
        let bad = try create("Bad", "ok, no/slash")
        #expect(bad.status == 400)
        #expect(bad.text.contains("tags[1]:") && bad.text.contains("value=\"ok, no/slash\""))
        #expect(bad.text.contains("name=\"tags\" type=\"text\" value=\"ok, no/slash\" aria-describedby=\"tags-hint\" aria-invalid=\"true\""))
        #expect(try create("Shop", "Prod, eu").status == 303)
        #expect(try create("Blog", "prod").status == 303)

        let all = try browser.get("/")
        #expect(all.text.contains("Shop") && all.text.contains("Blog"))
        #expect(all.text.contains("<a class=\"tag\" href=\"/?tag=eu\">eu</a>"))
        #expect(all.text.contains("<a class=\"tag\" href=\"/?tag=prod\">prod</a> <span class=\"muted\">2</span>"))
        let eu = try browser.get("/?tag=EU&tag=prod")
        #expect(eu.status == 200)
        #expect(eu.text.contains(">Shop</a>") && !eu.text.contains(">Blog</a>"))
        #expect(eu.text.contains("<a href=\"/\">all monitors</a>"))

        // The maintenance and status-page forms take tags too.
        let now = Time.now()
        let window = try browser.post("/maintenance", form: [
            ("csrf_token", csrf), ("title", "eu upgrade"), ("tags", "EU"),
            ("starts_at", WebMonitorPagesTests.localInput(now - 60)), ("ends_at", WebMonitorPagesTests.localInput(now + 3600)),
        ])
        #expect(window.status == 303)
        let maintenance = try browser.get("/maintenance")
        #expect(maintenance.text.contains("<td data-label=\"Monitors\">tag eu</td>"))
        let badWindow = try browser.post("/maintenance", form: [
            ("csrf_token", csrf), ("title", "x"), ("tags", "a/b"),
            ("starts_at", WebMonitorPagesTests.localInput(now)), ("ends_at", WebMonitorPagesTests.localInput(now + 60)),
        ])
        #expect(badWindow.status == 400 && badWindow.text.contains("tags[0]:"))
        #expect(badWindow.text.contains("name=\"tags\" type=\"text\" value=\"a/b\" aria-describedby=\"monitor-hint\" aria-invalid=\"true\""))
        let page = try browser.post("/status-pages", form: [("csrf_token", csrf), ("title", "Prod"), ("slug", "prod"), ("tags", "prod")])
        #expect(page.status == 303)
        #expect(try browser.get("/status-pages").text.contains("0 + tags prod"))
        let doc = try hub.call("GET", "/status/prod.json").json()
        #expect(doc["monitors"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Shop", "Blog"])
    }
}
