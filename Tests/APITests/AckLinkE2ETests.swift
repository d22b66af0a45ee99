import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Acknowledge links (SPEC §10) through the binary: a webhook's
/// `monitor_down` carries `acknowledge_url`; its GET (what a mail scanner or
/// a link preview does) shows the incident and changes nothing, however
/// often; the page's form POST acknowledges as `link: <channel name>` and
/// uses the link up; without the page's CSRF value it is refused.
@Suite struct AckLinkE2ETests {
    let webhooks = NotifyWebhookTests()

    func incident(_ hub: MonitoringHub, _ id: Int64) throws -> JSON {
        try expectJSON(try hub.call("GET", "/api/incidents/\(id)"))
    }

    @Test(arguments: TestEngine.all) func aGetChangesNothingAndTheFormAcknowledgesOnce(engine: TestEngine) throws {
        let receiver = try RecordingHTTPReceiver()
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(engine: engine)
        _ = try webhooks.webhook(hub, receiver.baseURL + "/hook")
        let (id, _) = try hub.createChecked(httpMonitor("API", target.healthURL))
        target.setStatus(503)
        try hub.check(id)
        webhooks.waitUntil("the down alert") { receiver.received.count == 1 }
        let down = try JSON.parse(try #require(receiver.received.first).body)
        #expect(down["event"] == "monitor_down")
        let incidentID = try #require(down["incident_id"]?.intValue)
        let link = try #require(down["acknowledge_url"]?.stringValue)
        let prefix = "http://127.0.0.1:\(hub.hub.port)/ack/"
        #expect(link.hasPrefix(prefix))
        let path = "/ack/" + link.dropFirst(prefix.count)
        #expect(link.count - prefix.count == 43, "256 random bits, base64url")

        // A scanner and a preview follow the link: nothing happens.
        let scanner = Browser(hub.hub)
        for _ in 0..<3 {
            let page = try scanner.get(path)
            #expect(page.status == 200)
            #expect(page.text.contains("API is down") && page.text.contains("data-ack-button"))
            #expect(page.header("Referrer-Policy") == "no-referrer" && page.header("X-Frame-Options") == "DENY")
            #expect(page.header("Cache-Control") == "no-store")
        }
        #expect(try incident(hub, incidentID)["acknowledged_at"] == .null)

        // A POST without the page's CSRF value (a forged form) is refused.
        let forger = Browser(hub.hub)
        #expect(try forger.post(path, form: [("csrf_token", "x")]).status == 403)
        #expect(try incident(hub, incidentID)["acknowledged_at"] == .null)

        // The person on call presses the button.
        let person = Browser(hub.hub)
        let page = try person.get(path)
        let csrf = try #require(Browser.csrfField(page.text))
        let done = try person.post(path, form: [("csrf_token", csrf)])
        #expect(done.status == 200 && done.text.contains("data-acknowledged"))
        let acknowledged = try incident(hub, incidentID)
        #expect(acknowledged["acknowledged_by"] == "link: ops hook")
        #expect(acknowledged["acknowledged_at"] != .null)

        // Used up: the page and the form are gone, for everyone.
        #expect(try person.post(path, form: [("csrf_token", csrf)]).status == 403, "the CSRF cookie was cleared")
        let again = Browser(hub.hub)
        #expect(try again.get(path).status == 404)
        // Unknown and malformed tokens look the same.
        #expect(try again.get("/ack/" + String(repeating: "A", count: 43)).status == 404)
        #expect(try again.get("/ack/not-a-token").status == 404)

        // The recovery carries no link.
        target.setStatus(200)
        try hub.check(id)
        webhooks.waitUntil("the up alert") { receiver.received.count == 2 }
        #expect(try JSON.parse(receiver.received[1].body)["acknowledge_url"] == nil)
    }

    @Test func aClosedIncidentsLinkNoLongerWorks() throws {
        let receiver = try RecordingHTTPReceiver()
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        _ = try webhooks.webhook(hub, receiver.baseURL + "/hook")
        let (id, _) = try hub.createChecked(httpMonitor("API", target.healthURL))
        target.setStatus(503)
        try hub.check(id)
        webhooks.waitUntil("the down alert") { receiver.received.count == 1 }
        let link = try #require(try JSON.parse(receiver.received[0].body)["acknowledge_url"]?.stringValue)
        let path = "/ack/" + (link.split(separator: "/").last.map(String.init) ?? "")
        let browser = Browser(hub.hub)
        let csrf = try #require(Browser.csrfField(try browser.get(path).text))
        target.setStatus(200)
        try hub.check(id)
        #expect(try browser.post(path, form: [("csrf_token", csrf)]).status == 404)
        #expect(try browser.get(path).status == 404)
        // The access log names the route, never the token (a credential).
        let token = String(path.dropFirst("/ack/".count))
        #expect(hub.hub.waitForLog { $0.contains("path=/ack/{token}") })
        #expect(!hub.hub.logLines.contains { $0.contains(token) })
    }
}
