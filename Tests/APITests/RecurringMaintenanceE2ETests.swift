import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Recurring maintenance through the running binary (SPEC §12): a weekly
/// window whose occurrence is in progress silences an outage (the incident
/// opens, the webhook gets nothing), the API shows `active` and
/// `next_start`, status pages announce it, and bad recurrences are refused.
@Suite struct RecurringMaintenanceE2ETests {
    func waitUntil(_ what: String, timeoutMillis: Int = 15_000, _ done: () -> Bool) {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
            usleep(50_000)
        }
    }

    /// "event monitor-id" of every webhook received.
    func alerts(_ r: RecordingHTTPReceiver) -> [String] {
        r.received.compactMap { got in
            guard let body = try? JSON.parse(got.body), let event = body["event"]?.stringValue,
                  let id = body["monitor"]?["id"]?.intValue else { return nil }
            return "\(event) \(id)"
        }
    }

    /// A weekly cron (Europe/Berlin wall clock) that fired two minutes ago:
    /// its occurrence of `minutes` is in progress now. Returns the fire time.
    func weeklyCronFiredRecently(now: Int64) throws -> (cron: String, fired: Int64) {
        let fired = (now - 120) / 60 * 60
        let p = try TimeZoneInfo.named("Europe/Berlin").localParts(fired)
        return ("\(p.minute) \(p.hour) * * \(p.weekday)", fired)
    }

    @Test(arguments: TestEngine.all) func aWeeklyWindowInProgressSilencesAnOutage(engine: TestEngine) throws {
        let receiver = try RecordingHTTPReceiver()
        let hub = try MonitoringHub(engine: engine)
        _ = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "ops hook", "type": "webhook", "events": ["monitor_down", "monitor_up"],
            "config": ["url": .string(receiver.baseURL + "/hook")],
        ]), 201)
        let target = try SwitchableHTTPTarget()
        let (quiet, _) = try hub.createChecked(httpMonitor("db", target.healthURL))
        let (loud, _) = try hub.createChecked(httpMonitor("web", target.healthURL))

        let now = Time.now()
        let (cron, fired) = try weeklyCronFiredRecently(now: now)
        let window = try expectJSON(try hub.call("POST", "/api/maintenance", json: [
            "title": "weekly patching", "monitor_ids": [.int(quiet)],
            "starts_at": .string(Time.rfc3339(now - 3 * 86_400)), "ends_at": .null,
            "recurrence": ["cron": .string(cron), "timezone": "Europe/Berlin", "duration_minutes": 60],
        ]), 201)
        #expect(window["active"] == .bool(true))
        #expect(window["ends_at"] == .null)
        #expect(window["recurrence"] == ["cron": .string(cron), "timezone": "Europe/Berlin", "duration_minutes": 60])
        // December: no daylight-saving change within the week.
        #expect(window["next_start"]?.stringValue == Time.rfc3339(fired + 7 * 86_400))
        let windowID = try #require(window["id"]?.intValue)
        let listed = try expectJSON(try hub.call("GET", "/api/maintenance"))["items"]?.arrayValue ?? []
        let shown = try #require(listed.first { $0["id"] == .int(windowID) })
        #expect(shown["active"] == .bool(true))
        #expect(shown["next_start"] == window["next_start"])
        #expect(try hub.monitor(quiet)["in_maintenance"] == .bool(true))
        #expect(try hub.monitor(loud)["in_maintenance"] == .bool(false))

        // Both go down: an incident opens for each, only the one outside
        // the window alerts.
        target.setStatus(503)
        let r = try hub.check(quiet)
        #expect(r["monitor"]?["status"]?.stringValue == "down")
        #expect(r["monitor"]?["open_incident_id"]?.intValue != nil, "the incident opens as usual")
        try hub.check(loud)
        waitUntil("the alert of the monitor outside the window") { alerts(receiver) == ["monitor_down \(loud)"] }
        usleep(1_500_000)
        #expect(alerts(receiver) == ["monitor_down \(loud)"], "nothing for the monitor in maintenance")
        #expect(try hub.events(quiet).map { "\($0.kind) \($0.suppressed)" } == ["monitor_down true"])

        // An occurrence that has not begun: a series starting tomorrow.
        let later = try expectJSON(try hub.call("PATCH", "/api/maintenance/\(windowID)", json: [
            "starts_at": .string(Time.rfc3339(now + 86_400)),
        ]))
        #expect(later["active"] == .bool(false))
        #expect(later["next_start"]?.stringValue == Time.rfc3339(fired + 7 * 86_400))
        #expect(try hub.monitor(quiet)["in_maintenance"] == .bool(false))
    }

    @Test func oneOffNextStartStatusPageAndValidation() throws {
        let hub = try MonitoringHub()
        let target = try SwitchableHTTPTarget()
        let (api, _) = try hub.createChecked(httpMonitor("Public API", target.healthURL))
        let (hidden, _) = try hub.createChecked(httpMonitor("Hidden billing", target.healthURL))
        let now = Time.now()
        // One-off in the future: next_start is its start; then once started, null.
        let future = try expectJSON(try hub.call("POST", "/api/maintenance", json: [
            "title": "db upgrade", "monitor_ids": [.int(api), .int(hidden)],
            "starts_at": .string(Time.rfc3339(now + 7200)), "ends_at": .string(Time.rfc3339(now + 9000)),
        ]), 201)
        #expect(future["active"] == .bool(false))
        #expect(future["recurrence"] == .null)
        #expect(future["next_start"]?.stringValue == Time.rfc3339(now + 7200))
        let running = try expectJSON(try hub.call("POST", "/api/maintenance", json: [
            "title": "zz-running-window", "monitor_ids": [.int(hidden)],
            "starts_at": .string(Time.rfc3339(now - 60)), "ends_at": .string(Time.rfc3339(now + 600)),
        ]), 201)
        #expect(running["active"] == .bool(true))
        #expect(running["next_start"] == .null)
        // Far away: not announced (beyond 7 days).
        _ = try expectJSON(try hub.call("POST", "/api/maintenance", json: [
            "title": "zz-next-month", "monitor_ids": [.int(api)],
            "starts_at": .string(Time.rfc3339(now + 30 * 86_400)), "ends_at": .string(Time.rfc3339(now + 30 * 86_400 + 60)),
        ]), 201)

        // The status page lists the upcoming one with only its own monitors.
        _ = try expectJSON(try hub.call("POST", "/api/status-pages", json: [
            "slug": "acme", "title": "Acme status", "monitor_ids": [.int(api)],
        ]), 201)
        let doc = try expectJSON(try hub.hub.call("GET", "/status/acme.json"))
        let announced = doc["maintenance"]?.arrayValue ?? []
        #expect(announced.map { $0["title"]?.stringValue } == ["db upgrade"])
        #expect(announced.first?["starts_at"]?.stringValue == Time.rfc3339(now + 7200))
        #expect(announced.first?["ends_at"]?.stringValue == Time.rfc3339(now + 9000))
        #expect(announced.first?["active"] == .bool(false))
        #expect(announced.first?["monitors"] == ["Public API"])
        let html = try hub.hub.call("GET", "/status/acme").text
        #expect(html.contains("Scheduled maintenance") && html.contains("db upgrade"))
        #expect(!html.contains("Hidden billing") && !html.contains("zz-next-month") && !html.contains("zz-running-window"))

        // Validation: 400 with the field.
        func body(_ recurrence: JSON, ends: JSON = .null) -> JSON {
            ["title": "x", "starts_at": .string(Time.rfc3339(now)), "ends_at": ends, "recurrence": recurrence]
        }
        expectError(try hub.call("POST", "/api/maintenance", json: body(["cron": "0 25 * * *", "duration_minutes": 5])),
                    400, field: "recurrence.cron")
        expectError(try hub.call("POST", "/api/maintenance", json: body(["cron": "0 2 * * 0", "timezone": "Mars/Olympus",
                                                                          "duration_minutes": 5])),
                    400, field: "recurrence.timezone")
        expectError(try hub.call("POST", "/api/maintenance", json: body(["cron": "0 2 * * 0", "duration_minutes": 0])),
                    400, field: "recurrence.duration_minutes")
        expectError(try hub.call("POST", "/api/maintenance", json: body(["cron": "0 2 * * 0", "duration_minutes": 10_081])),
                    400, field: "recurrence.duration_minutes")
        expectError(try hub.call("POST", "/api/maintenance", json: body(["cron": "0 2 * * 0"])),
                    400, field: "recurrence.duration_minutes")
        expectError(try hub.call("POST", "/api/maintenance", json: body("weekly")), 400, field: "recurrence")
        expectError(try hub.call("POST", "/api/maintenance", json: body(.null)), 400, field: "ends_at")
        // A one-off window keeps its rules; removing the recurrence of an
        // open-ended series needs an end.
        let series = try expectJSON(try hub.call("POST", "/api/maintenance", json: body(["cron": "@daily", "duration_minutes": 30])), 201)
        #expect(series["recurrence"]?["timezone"]?.stringValue == "UTC", "the default zone")
        let seriesID = try #require(series["id"]?.intValue)
        expectError(try hub.call("PATCH", "/api/maintenance/\(seriesID)", json: ["recurrence": .null]), 400, field: "ends_at")
        let ended = try expectJSON(try hub.call("PATCH", "/api/maintenance/\(seriesID)", json: [
            "recurrence": .null, "ends_at": .string(Time.rfc3339(now + 60)),
        ]))
        #expect(ended["recurrence"] == .null && ended["active"] == .bool(true))
    }
}
