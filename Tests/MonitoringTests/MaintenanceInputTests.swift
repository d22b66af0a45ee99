import Core
import Monitoring
import Store
import Testing

/// `MaintenanceInput.parse` with recurrences (SPEC §12): the fields named in
/// errors, the series' bounds and PATCH merging.
@Suite struct MaintenanceInputTests {
    func parse(_ body: JSON, existing: MaintenanceRecord? = nil) throws(JSONFieldError) -> MaintenanceInput {
        try MaintenanceInput.parse(try JSONFields(body), existing: existing)
    }

    func field(_ body: JSON, existing: MaintenanceRecord? = nil) -> String? {
        do {
            _ = try parse(body, existing: existing)
            return nil
        } catch {
            return error.field
        }
    }

    let start = "2026-12-01T00:00:00Z"

    @Test func recurrenceRulesAndFields() throws {
        let ok = try parse(["title": "patch", "starts_at": .string(start),
                            "recurrence": ["cron": " 0 2 * * SUN ", "timezone": "Europe/Berlin", "duration_minutes": 120]])
        #expect(ok.endsAt == nil, "no end")
        #expect(ok.recurrence == .init(cron: "0 2 * * SUN", timezone: "Europe/Berlin", durationMinutes: 120))
        func with(_ r: JSON, ends: JSON? = nil) -> JSON {
            var o = JSONObject([("title", "x"), ("starts_at", .string(start)), ("recurrence", r)])
            if let ends { o["ends_at"] = ends }
            return .object(o)
        }
        #expect(field(with(["cron": "0 2 * *", "duration_minutes": 5])) == "recurrence.cron")
        #expect(field(with(["cron": "@reboot", "duration_minutes": 5])) == "recurrence.cron")
        #expect(field(with(["cron": 5, "duration_minutes": 5])) == "recurrence.cron")
        #expect(field(with(["cron": "0 2 * * 0", "timezone": "../etc/passwd", "duration_minutes": 5])) == "recurrence.timezone")
        #expect(field(with(["cron": "0 2 * * 0", "duration_minutes": 10_080])) == nil, "a week is the longest")
        #expect(field(with(["cron": "0 2 * * 0", "duration_minutes": "60"])) == "recurrence.duration_minutes")
        #expect(field(with(["duration_minutes": 5])) == "recurrence.cron")
        // Never fires (30 February), or not before the series' end.
        #expect(field(with(["cron": "0 0 30 2 *", "duration_minutes": 5])) == "recurrence.cron")
        #expect(field(with(["cron": "0 2 1 1 *", "duration_minutes": 5], ends: "2026-12-20T00:00:00Z")) == "recurrence.cron")
        #expect(field(with(["cron": "0 2 * * 0", "duration_minutes": 5], ends: .string(start))) == "ends_at")
        // A series may last longer than a year; a one-off window may not.
        #expect(field(with(["cron": "0 2 * * 0", "duration_minutes": 5], ends: "2030-01-01T00:00:00Z")) == nil)
        #expect(field(["title": "x", "starts_at": .string(start), "ends_at": "2030-01-01T00:00:00Z"]) == "ends_at")
        #expect(field(["title": "x", "starts_at": .string(start)]) == "ends_at")
        #expect(field(["title": "x", "starts_at": .string(start), "ends_at": .null, "recurrence": .null]) == "ends_at")
    }

    @Test func patchMergesRecurrenceAndEnd() throws {
        var stored = MaintenanceRecord(title: "patch", monitorIDs: [3], startsAt: Time.parseRFC3339(start)!, endsAt: nil, createdBy: nil,
                                       recurrence: .init(cron: "0 2 * * 0", timezone: "UTC", durationMinutes: 60))
        stored.id = 1
        let renamed = try parse(["title": "renamed"], existing: stored)
        #expect(renamed.recurrence == stored.recurrence && renamed.endsAt == nil && renamed.monitorIDs == [3])
        let bounded = try parse(["ends_at": "2027-06-01T00:00:00Z"], existing: stored)
        #expect(bounded.endsAt == Time.parseRFC3339("2027-06-01T00:00:00Z"))
        var withEnd = stored
        withEnd.endsAt = bounded.endsAt
        #expect(try parse(["ends_at": .null], existing: withEnd).endsAt == nil, "null removes the series' end")
        #expect(field(["recurrence": .null], existing: stored) == "ends_at", "a one-off window needs an end")
        let oneOff = try parse(["recurrence": .null, "ends_at": "2026-12-01T02:00:00Z"], existing: stored)
        #expect(oneOff.recurrence == nil && oneOff.endsAt == Time.parseRFC3339("2026-12-01T02:00:00Z"))
    }
}
