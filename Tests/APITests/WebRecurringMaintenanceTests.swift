import Core
import Testing
import TestSupport

/// The maintenance page's recurrence fields (SPEC §12) through the running
/// binary: a bad cron comes back with the API's message and the typed
/// values, a good one creates a series without end that the list shows
/// with its rhythm and next start.
@Suite struct WebRecurringMaintenanceTests {
    static func localInput(_ seconds: Int64) -> String { String(Time.rfc3339(seconds).prefix(16)) }

    @Test func theFormSchedulesARecurringWindow() throws {
        let hub = try HubProcess()
        let browser = Browser(hub)
        #expect(try browser.login().status == 303)
        let csrf = try browser.sessionCSRF()
        let page = try browser.get("/maintenance")
        #expect(page.status == 200)
        #expect(page.text.contains("name=\"cron\"") && page.text.contains("name=\"timezone\"")
                && page.text.contains("name=\"duration_minutes\""))

        let now = Time.now()
        let bad = try browser.post("/maintenance", form: [
            ("csrf_token", csrf), ("title", "patch night"), ("starts_at", Self.localInput(now)), ("ends_at", ""),
            ("cron", "0 2 * * 8"), ("timezone", "Europe/Berlin"), ("duration_minutes", "120"),
        ])
        #expect(bad.status == 400)
        #expect(bad.text.contains("recurrence.cron: recurrence.cron: day-of-week: 8 is out of range 0-7"))
        #expect(bad.text.contains("value=\"0 2 * * 8\"") && bad.text.contains("value=\"Europe/Berlin\""))
        #expect(bad.text.contains("name=\"cron\" type=\"text\" maxlength=\"256\" value=\"0 2 * * 8\" placeholder=\"0 2 * * 0\" aria-describedby=\"cron-hint\" aria-invalid=\"true\""))

        let created = try browser.post("/maintenance", form: [
            ("csrf_token", csrf), ("title", "patch night"), ("starts_at", Self.localInput(now)), ("ends_at", ""),
            ("cron", "0 2 * * 0"), ("timezone", "Europe/Berlin"), ("duration_minutes", "120"),
        ])
        #expect(created.status == 303 && created.header("Location") == "/maintenance?flash=scheduled")
        let windows = try expectJSON(try browser.api("GET", "/api/maintenance"))["items"]?.arrayValue ?? []
        let w = try #require(windows.first)
        #expect(w["recurrence"] == ["cron": "0 2 * * 0", "timezone": "Europe/Berlin", "duration_minutes": 120])
        #expect(w["ends_at"] == .null)
        let next = try #require(w["next_start"]?.stringValue.flatMap(Time.parseRFC3339))
        let list = try browser.get("/maintenance").text
        #expect(list.contains("<code>0 2 * * 0 (Europe/Berlin), 120 min</code>"))
        #expect(list.contains("<time datetime=\"\(Time.rfc3339(next))\">"))
        #expect(list.contains(">no end<"))
    }
}
