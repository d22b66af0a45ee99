import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Dependencies in the web pages (SPEC §12): the new-monitor form's
/// multi-select, the monitor page's "Depends on", and "suppressed by" on the
/// incidents page.
@Suite struct WebDependencyPagesTests {
    @Test func formMonitorPageAndSuppressedIncident() throws {
        let target = try SwitchableHTTPTarget()
        let hub = try HubProcess()
        let browser = Browser(hub)
        #expect(try browser.login().status == 303)
        let csrf = try browser.sessionCSRF()
        func create(_ name: String, _ extra: [(String, String)] = []) throws -> Int64 {
            let r = try browser.post("/monitors", form: [("csrf_token", csrf), ("name", name), ("type", "http"),
                                                         ("target", target.healthURL), ("interval", "3600"), ("timeout", "5"),
                                                         ("retries", "0")] + extra)
            #expect(r.status == 303)
            return try #require(WebMonitorPagesTests.monitorID(r.header("Location")))
        }
        let router = try create("Router")
        let form = try browser.get("/monitors/new")
        #expect(form.text.contains("<select id=\"depends_on\" name=\"depends_on\" multiple"))
        #expect(form.text.contains("<option value=\"\(router)\">Router</option>"))
        let api = try create("Shop API", [("depends_on", String(router))])
        let page = try browser.get("/monitors/\(api)")
        #expect(page.text.contains("<dt>Depends on</dt><dd><a href=\"/monitors/\(router)\">Router</a>"))

        target.setStatus(503)
        for id in [api, router] {
            #expect(try browser.post("/monitors/\(id)/check", form: [("csrf_token", csrf)]).status == 303)
        }
        let incidents = try browser.get("/incidents")
        #expect(incidents.text.contains("(suppressed by <a href=\"/monitors/\(router)\">Router</a>)"))
    }
}
