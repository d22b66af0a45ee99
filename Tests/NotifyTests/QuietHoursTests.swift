import Store
import Testing
import Core
@testable import Notify

/// SPEC §10 quiet hours: the pure decision (spans across midnight, daylight
/// saving time in Europe/Berlin) and the validation of `PUT /api/me/quiet-hours`.
@Suite struct QuietHoursDecisionTests {
    static func at(_ rfc3339: String) -> Int64 { Time.parseRFC3339(rfc3339)! }

    static let night = QuietHours(enabled: true, start: 22 * 60, end: 7 * 60, timezone: "Europe/Berlin", minPriority: 8)

    struct Probe: Sendable, CustomStringConvertible {
        var utc: String
        var quiet: Bool
        var why: String
        var description: String { "\(utc) \(why)" }
    }

    /// 22:00–07:00 in Berlin. Winter is UTC+1 (CET), summer UTC+2 (CEST);
    /// the clocks went forward on 2026-03-29 at 02:00 and back on
    /// 2026-10-25 at 03:00 local time.
    static let berlin: [Probe] = [
        Probe(utc: "2026-01-15T20:59:00Z", quiet: false, why: "21:59 CET"),
        Probe(utc: "2026-01-15T21:00:00Z", quiet: true, why: "22:00 CET: start is inside"),
        Probe(utc: "2026-01-15T23:30:00Z", quiet: true, why: "00:30 CET: after midnight"),
        Probe(utc: "2026-01-16T05:59:00Z", quiet: true, why: "06:59 CET"),
        Probe(utc: "2026-01-16T06:00:00Z", quiet: false, why: "07:00 CET: end is outside"),
        Probe(utc: "2026-07-15T20:00:00Z", quiet: true, why: "22:00 CEST: an hour earlier in UTC than in winter"),
        Probe(utc: "2026-07-16T04:59:00Z", quiet: true, why: "06:59 CEST"),
        Probe(utc: "2026-07-16T05:00:00Z", quiet: false, why: "07:00 CEST (06:00 CET would still be quiet)"),
        // The spring-forward night: 22:00 CET on the 28th to 07:00 CEST on the 29th, eight real hours.
        Probe(utc: "2026-03-28T21:00:00Z", quiet: true, why: "22:00 CET, the evening before the change"),
        Probe(utc: "2026-03-29T00:59:00Z", quiet: true, why: "01:59 CET, just before the clocks go forward"),
        Probe(utc: "2026-03-29T01:00:00Z", quiet: true, why: "03:00 CEST, just after"),
        Probe(utc: "2026-03-29T04:59:00Z", quiet: true, why: "06:59 CEST"),
        Probe(utc: "2026-03-29T05:00:00Z", quiet: false, why: "07:00 CEST"),
        Probe(utc: "2026-03-29T05:30:00Z", quiet: false, why: "07:30 CEST, though 06:30 CET"),
        // The fall-back night: 22:00 CEST on the 24th to 07:00 CET on the 25th, ten real hours.
        Probe(utc: "2026-10-24T19:59:00Z", quiet: false, why: "21:59 CEST"),
        Probe(utc: "2026-10-24T20:00:00Z", quiet: true, why: "22:00 CEST"),
        Probe(utc: "2026-10-25T00:30:00Z", quiet: true, why: "02:30 CEST, the first 02:30"),
        Probe(utc: "2026-10-25T01:30:00Z", quiet: true, why: "02:30 CET, the second 02:30"),
        Probe(utc: "2026-10-25T05:59:00Z", quiet: true, why: "06:59 CET, though 07:59 CEST"),
        Probe(utc: "2026-10-25T06:00:00Z", quiet: false, why: "07:00 CET"),
    ]

    @Test(arguments: berlin) func acrossMidnightAndDaylightSavingTime(_ p: Probe) {
        #expect(Self.night.covers(Self.at(p.utc)) == p.quiet)
    }

    @Test func aSpanWithinOneDay() {
        let lunch = QuietHours(enabled: true, start: 12 * 60, end: 13 * 60 + 30, timezone: "UTC", minPriority: 8)
        #expect(!lunch.covers(Self.at("2026-05-01T11:59:59Z")))
        #expect(lunch.covers(Self.at("2026-05-01T12:00:00Z")))
        #expect(lunch.covers(Self.at("2026-05-01T13:29:59Z")))
        #expect(!lunch.covers(Self.at("2026-05-01T13:30:00Z")))
        #expect(!lunch.covers(Self.at("2026-05-01T23:00:00Z")))
    }

    /// A span inside the hour the spring change skips only has its part
    /// before the jump: 02:00–03:00 local never happens that night.
    @Test func aSpanInTheSkippedHour() {
        let q = QuietHours(enabled: true, start: 1 * 60 + 30, end: 2 * 60 + 30, timezone: "Europe/Berlin", minPriority: 8)
        #expect(q.covers(Self.at("2026-03-29T00:45:00Z")))   // 01:45 CET
        #expect(!q.covers(Self.at("2026-03-29T01:00:00Z")))  // 03:00 CEST
    }

    @Test func belowTheThresholdOnlyAndOnlyWhenOn() {
        let t = Self.at("2026-01-15T23:30:00Z")
        #expect(Self.night.quiets(priority: 6, at: t))
        #expect(Self.night.quiets(priority: 7, at: t))
        #expect(!Self.night.quiets(priority: 8, at: t))
        #expect(!Self.night.quiets(priority: 10, at: t))
        #expect(!Self.night.quiets(priority: 6, at: Self.at("2026-01-15T12:00:00Z")))
        var off = Self.night
        off.enabled = false
        #expect(!off.quiets(priority: 0, at: t))
    }

    @Test func theDefaultsAndTheirJSON() {
        #expect(QuietHours.defaults.json == ["enabled": false, "start": "22:00", "end": "07:00", "timezone": "UTC", "min_priority": 8])
        let stored = Self.night.record(userID: 4)
        #expect(stored.start == "22:00" && stored.end == "07:00" && stored.minPriority == 8)
        #expect(QuietHours(record: stored) == Self.night)
    }

    /// At send time: only alerts carry a priority, so sign-in approvals and
    /// Live Activity messages are never quieted.
    @Test func theSenderQuietsAlertsOnly() {
        let t = Self.at("2026-01-15T23:30:00Z")
        var n = down
        n.priority = 6
        let alert = PushMessages.alert(n, to: PushMessages.Device(platform: "ios", token: "x"), hubID: "h")
        #expect(PushTransport.quiets(alert, Self.night, at: t))
        n.priority = 8
        #expect(!PushTransport.quiets(PushMessages.alert(n, to: PushMessages.Device(platform: "ios", token: "x"), hubID: "h"),
                                      Self.night, at: t))
        let approval = PushMessages.loginApproval(approvalID: "a", client: "c", to: PushMessages.Device(platform: "ios", token: "x"),
                                                  id: "approval-a", hubID: "h", hubName: "hub", expiresAt: t + 120)
        #expect(!PushTransport.quiets(approval, Self.night, at: t))
    }
}

@Suite struct QuietHoursValidationTests {
    static func parse(_ body: JSON) throws(JSONFieldError) -> QuietHours {
        try QuietHoursValidator.parse(try JSONFields(body))
    }

    static func field(_ body: JSON) -> String? {
        do {
            _ = try parse(body)
            return nil
        } catch {
            return error.field
        }
    }

    static let valid: JSON = ["enabled": true, "start": "22:00", "end": "07:00", "timezone": "Europe/Berlin", "min_priority": 7]

    @Test func aValidBody() throws {
        #expect(try Self.parse(Self.valid) == QuietHours(enabled: true, start: 1320, end: 420, timezone: "Europe/Berlin", minPriority: 7))
        var noMin = try #require(Self.valid.objectValue)
        noMin["min_priority"] = Optional<JSON>.none
        #expect(try Self.parse(.object(noMin)).minPriority == 8)
    }

    struct Bad: Sendable, CustomStringConvertible {
        var key: String
        var value: JSON?
        var field: String
        var description: String { "\(key)=\(value?.text ?? "absent")" }
    }

    static let bad: [Bad] = [
        Bad(key: "start", value: "07:00", field: "end"),
        Bad(key: "start", value: "7:00", field: "start"), Bad(key: "start", value: "24:00", field: "start"),
        Bad(key: "end", value: "07:60", field: "end"), Bad(key: "end", value: "07:00:00", field: "end"),
        Bad(key: "end", value: 700, field: "end"), Bad(key: "start", value: nil, field: "start"),
        Bad(key: "timezone", value: "Mars/Olympus_Mons", field: "timezone"), Bad(key: "timezone", value: "../etc/passwd", field: "timezone"),
        Bad(key: "timezone", value: nil, field: "timezone"),
        Bad(key: "min_priority", value: 11, field: "min_priority"), Bad(key: "min_priority", value: -1, field: "min_priority"),
        Bad(key: "enabled", value: "yes", field: "enabled"), Bad(key: "enabled", value: nil, field: "enabled"),
    ]

    @Test(arguments: bad) func refusedWithItsField(_ b: Bad) throws {
        var body = try #require(Self.valid.objectValue)
        body[b.key] = b.value
        #expect(Self.field(.object(body)) == b.field)
    }
}
