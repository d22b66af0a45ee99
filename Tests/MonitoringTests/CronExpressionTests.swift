import Testing
import Core
@testable import Monitoring

private func utc(_ text: String) -> Int64 {
    guard let t = Time.parseRFC3339(text) else { fatalError("bad time in test: \(text)") }
    return t
}

private func cron(_ text: String) -> CronExpression {
    do { return try CronExpression(text) } catch { fatalError("\(text): \(error)") }
}

private func parseError(_ text: String) -> String? {
    do { _ = try CronExpression(text); return nil } catch { return error.description }
}

/// The set bits of a field, as a sorted list.
private func values(_ bits: UInt64) -> [Int] { (0..<64).filter { bits & (1 << UInt64($0)) != 0 } }

@Suite struct CronParseTests {
    // (expression, minutes, hours, days of month, months, days of week)
    static let valid: [(String, [Int], [Int], [Int], [Int], [Int])] = [
        ("* * * * *", Array(0...59), Array(0...23), Array(1...31), Array(1...12), Array(0...6)),
        ("0 0 1 1 *", [0], [0], [1], [1], Array(0...6)),
        ("*/15 */6 * * *", [0, 15, 30, 45], [0, 6, 12, 18], Array(1...31), Array(1...12), Array(0...6)),
        ("1-30/10 9-17 1,15 * 1-5", [1, 11, 21], Array(9...17), [1, 15], Array(1...12), [1, 2, 3, 4, 5]),
        ("5,10-12,50-59/3 0 * * *", [5, 10, 11, 12, 50, 53, 56, 59], [0], Array(1...31), Array(1...12), Array(0...6)),
        ("0 0 * jan-Mar,DEC *", [0], [0], Array(1...31), [1, 2, 3, 12], Array(0...6)),
        ("0 0 * * MON-fri", [0], [0], Array(1...31), Array(1...12), [1, 2, 3, 4, 5]),
        ("0 0 * * sun,SAT", [0], [0], Array(1...31), Array(1...12), [0, 6]),
        ("0 0 * * 7", [0], [0], Array(1...31), Array(1...12), [0]),
        ("0 0 * * 0,7", [0], [0], Array(1...31), Array(1...12), [0]),
        ("0 0 * * 5-7", [0], [0], Array(1...31), Array(1...12), [0, 5, 6]),
        ("0 0 * * */2", [0], [0], Array(1...31), Array(1...12), [0, 2, 4, 6]),
        ("30/10 * * * *", [30, 40, 50], Array(0...23), Array(1...31), Array(1...12), Array(0...6)),
        ("0 22/1 * * *", [0], [22, 23], Array(1...31), Array(1...12), Array(0...6)),
        ("*/100 * * * *", [0], Array(0...23), Array(1...31), Array(1...12), Array(0...6)),
        ("  0\t12  31 12   *  ", [0], [12], [31], [12], Array(0...6)),
        ("@yearly", [0], [0], [1], [1], Array(0...6)),
        ("@annually", [0], [0], [1], [1], Array(0...6)),
        ("@monthly", [0], [0], [1], Array(1...12), Array(0...6)),
        ("@weekly", [0], [0], Array(1...31), Array(1...12), [0]),
        ("@daily", [0], [0], Array(1...31), Array(1...12), Array(0...6)),
        ("@MIDNIGHT", [0], [0], Array(1...31), Array(1...12), Array(0...6)),
        ("@hourly", [0], Array(0...23), Array(1...31), Array(1...12), Array(0...6)),
    ]

    @Test(arguments: 0..<valid.count) func parsesValid(_ i: Int) throws {
        let (text, minutes, hours, doms, months, dows) = Self.valid[i]
        let c = try CronExpression(text)
        #expect(values(c.minutes) == minutes, "\(text)")
        #expect(values(c.hours) == hours, "\(text)")
        #expect(values(c.daysOfMonth) == doms, "\(text)")
        #expect(values(c.months) == months, "\(text)")
        #expect(values(c.daysOfWeek) == dows, "\(text)")
        #expect(c.text == text)
    }

    @Test func starFlagsFollowVixie() throws {
        let a = try CronExpression("0 0 1 * *")
        #expect(!a.dayOfMonthStar && a.dayOfWeekStar)
        let b = try CronExpression("0 0 */2 * MON")
        #expect(b.dayOfMonthStar && !b.dayOfWeekStar)
        let c = try CronExpression("0 0 1-31 * 0-6")
        #expect(!c.dayOfMonthStar && !c.dayOfWeekStar)
    }

    static let invalid: [(String, String)] = [
        ("", "empty cron expression"),
        ("   ", "empty cron expression"),
        ("* * * *", "expected 5 fields (minute hour day-of-month month day-of-week), got 4"),
        ("* * * * * *", "expected 5 fields (minute hour day-of-month month day-of-week), got 6"),
        ("61 * * * *", "minute: 61 is out of range 0-59"),
        ("60 * * * *", "minute: 60 is out of range 0-59"),
        ("* 24 * * *", "hour: 24 is out of range 0-23"),
        ("* * 0 * *", "day-of-month: 0 is out of range 1-31"),
        ("* * 32 * *", "day-of-month: 32 is out of range 1-31"),
        ("* * * 13 *", "month: 13 is out of range 1-12"),
        ("* * * 0 *", "month: 0 is out of range 1-12"),
        ("* * * * 8", "day-of-week: 8 is out of range 0-7"),
        ("* * * * 99999", "day-of-week: 99999 is out of range 0-7"),
        ("a * * * *", "minute: 'a' is not a valid value"),
        ("* * * * MONDAY", "day-of-week: 'MONDAY' is not a valid value"),
        ("* * * FOO *", "month: 'FOO' is not a valid value"),
        ("* MON * * *", "hour: 'MON' is not a valid value"),
        ("* * * * JAN", "day-of-week: 'JAN' is not a valid value"),
        ("-5 * * * *", "minute: missing value"),
        ("5- * * * *", "minute: missing value"),
        ("1,,2 * * * *", "minute: empty item in list '1,,2'"),
        ("1, * * * *", "minute: empty item in list '1,'"),
        ("*/0 * * * *", "minute: step must be at least 1"),
        ("*/ * * * *", "minute: '' is not a valid step"),
        ("*/x * * * *", "minute: 'x' is not a valid step"),
        ("* */-1 * * *", "hour: '-1' is not a valid step"),
        ("30-10 * * * *", "minute: range 30-10 is backwards (30 > 10)"),
        ("* * * * FRI-MON", "day-of-week: range FRI-MON is backwards (5 > 1)"),
        ("* * * * 1-2-3", "day-of-week: '2-3' is not a valid value"),
        ("? * * * *", "minute: '?' is not a valid value"),
        ("* * L * *", "day-of-month: 'L' is not a valid value"),
        ("@reboot", "'@reboot' has no schedule and is not supported"),
        ("@every5m", "unknown macro '@every5m'"),
    ]

    @Test(arguments: 0..<invalid.count) func rejectsInvalid(_ i: Int) {
        let (text, message) = Self.invalid[i]
        #expect(parseError(text) == message, "\(text)")
    }

    @Test func errorCarriesField() {
        do {
            _ = try CronExpression("0 25 * * *")
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "hour")
            #expect(error.message == "25 is out of range 0-23")
        }
    }
}

@Suite struct CronNextUTCTests {
    // (expression, after, expected next) — all UTC; weekdays checked with `date -u`.
    static let cases: [(String, String, String?)] = [
        // every 5 minutes
        ("*/5 * * * *", "2026-01-01T00:00:00Z", "2026-01-01T00:05:00Z"),
        ("*/5 * * * *", "2026-01-01T00:04:59Z", "2026-01-01T00:05:00Z"),
        ("*/5 * * * *", "2026-01-01T00:05:00Z", "2026-01-01T00:10:00Z"),
        ("*/5 * * * *", "2025-12-31T23:58:00Z", "2026-01-01T00:00:00Z"),
        ("* * * * *", "2026-01-01T00:00:30Z", "2026-01-01T00:01:00Z"),
        // hourly
        ("0 * * * *", "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z"),
        ("0 * * * *", "2026-01-01T10:59:59Z", "2026-01-01T11:00:00Z"),
        ("@hourly", "2026-12-31T23:30:00Z", "2027-01-01T00:00:00Z"),
        // weekdays 9-17 (2026-01-01 is a Thursday, 01-02 a Friday)
        ("0 9-17 * * 1-5", "2026-01-01T08:00:00Z", "2026-01-01T09:00:00Z"),
        ("0 9-17 * * MON-FRI", "2026-01-02T16:30:00Z", "2026-01-02T17:00:00Z"),
        ("0 9-17 * * 1-5", "2026-01-02T17:00:00Z", "2026-01-05T09:00:00Z"),
        ("0 9-17 * * 1-5", "2026-01-03T12:00:00Z", "2026-01-05T09:00:00Z"),
        // 1st and 15th
        ("0 0 1,15 * *", "2026-01-01T00:00:00Z", "2026-01-15T00:00:00Z"),
        ("0 0 1,15 * *", "2026-01-15T00:00:00Z", "2026-02-01T00:00:00Z"),
        ("0 0 1,15 * *", "2026-12-15T00:00:00Z", "2027-01-01T00:00:00Z"),
        // both day fields restricted: either matches (13th or any Friday)
        ("0 0 13 * FRI", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"),
        ("0 0 13 * FRI", "2026-01-02T00:00:00Z", "2026-01-09T00:00:00Z"),
        ("0 0 13 * FRI", "2026-01-09T00:00:00Z", "2026-01-13T00:00:00Z"),
        ("0 0 13 * 5", "2026-01-13T00:00:00Z", "2026-01-16T00:00:00Z"),
        // day-of-month starting with * is "unrestricted": AND (odd days that are Fridays)
        ("0 0 */2 * FRI", "2026-01-01T00:00:00Z", "2026-01-09T00:00:00Z"),
        // day-of-week * with a day-of-month: only the day-of-month
        ("0 0 13 * *", "2026-01-01T00:00:00Z", "2026-01-13T00:00:00Z"),
        // month + weekday: Saturdays in Q1 (2027-01-02 is a Saturday)
        ("0 12 * JAN-MAR SAT", "2026-03-28T12:00:00Z", "2027-01-02T12:00:00Z"),
        // Sunday as 0 and 7; @weekly
        ("0 0 * * 7", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z"),
        ("0 0 * * 0", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z"),
        ("@weekly", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z"),
        ("@yearly", "2026-06-01T00:00:00Z", "2027-01-01T00:00:00Z"),
        ("@monthly", "2026-01-31T23:59:59Z", "2026-02-01T00:00:00Z"),
        // 31st: skips short months
        ("0 0 31 * *", "2026-01-31T00:00:00Z", "2026-03-31T00:00:00Z"),
        // Feb 29: leap years only; 2100 is not a leap year
        ("0 0 29 2 *", "2026-01-01T00:00:00Z", "2028-02-29T00:00:00Z"),
        ("0 0 29 2 *", "2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"),
        ("0 0 29 2 *", "2096-03-01T00:00:00Z", "2104-02-29T00:00:00Z"),
        ("0 12 28-29 2 *", "2026-02-28T12:00:00Z", "2027-02-28T12:00:00Z"),
        // never
        ("0 0 30 2 *", "2026-01-01T00:00:00Z", nil),
        ("0 0 31 4,6,9,11 *", "2026-01-01T00:00:00Z", nil),
        // last minute of the year
        ("59 23 31 12 *", "2026-06-01T00:00:00Z", "2026-12-31T23:59:00Z"),
    ]

    @Test(arguments: 0..<cases.count) func next(_ i: Int) {
        let (text, after, expected) = Self.cases[i]
        let got = cron(text).next(after: utc(after), in: .utc)
        #expect(got.map(Time.rfc3339) == expected, "\(text) after \(after)")
    }

    @Test func nextIsStrictlyAfterAndMatches() {
        // Walk a few expressions forward and check each result against a
        // minute-by-minute reference.
        for text in ["*/7 * * * *", "15 3,4 * * 1-5", "0 0 13 * FRI", "*/20 8-9 1-7 * 1"] {
            let c = cron(text)
            var t = utc("2026-01-01T00:00:00Z")
            for _ in 0..<30 {
                guard let n = c.next(after: t) else { Issue.record("\(text): nil"); return }
                var m = (t / 60 + 1) * 60
                while m < n {
                    let p = TimeZoneInfo.utc.localParts(m)
                    #expect(!c.matches(year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute),
                            "\(text): missed \(Time.rfc3339(m))")
                    m += 60
                }
                let p = TimeZoneInfo.utc.localParts(n)
                #expect(c.matches(year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute))
                #expect(n > t && n % 60 == 0)
                t = n
            }
        }
    }

    @Test func impossibleExpressionAnswersQuickly() {
        // Skips by field: 8 years of a never-matching day end fast.
        let start = Time.monotonicNanos()
        for _ in 0..<100 { #expect(cron("* * 30 2 *").next(after: utc("2026-01-01T00:00:00Z")) == nil) }
        #expect(Time.monotonicNanos() - start < 2_000_000_000)
    }
}

@Suite struct CronNextTimeZoneTests {
    static let paris: TimeZoneInfo = {
        do { return try TimeZoneInfo.named("Europe/Paris") } catch { fatalError("\(error)") }
    }()
    static let newYork: TimeZoneInfo = {
        do { return try TimeZoneInfo.named("America/New_York") } catch { fatalError("\(error)") }
    }()

    // (zone, expression, after, expected). Expected values checked with
    // `TZ=Europe/Paris date -d @…` / `TZ=America/New_York date -d @…`.
    static let cases: [(String, String, String, String)] = [
        // Paris, ordinary day: 02:30 CET = 01:30Z
        ("Europe/Paris", "30 2 * * *", "2026-03-27T12:00:00Z", "2026-03-28T01:30:00Z"),
        // Paris spring forward 2026-03-29: 02:00 CET → 03:00 CEST at 01:00Z.
        // 02:30 does not exist: fires at the end of the gap (03:00 CEST = 01:00Z).
        ("Europe/Paris", "30 2 * * *", "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z"),
        ("Europe/Paris", "30 2 * * *", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"),
        ("Europe/Paris", "0 3 * * *", "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z"),
        ("Europe/Paris", "0 1 * * *", "2026-03-28T12:00:00Z", "2026-03-29T00:00:00Z"),
        // every 15 min: 01:45 CET, then the gap collapses into 03:00 CEST, then 03:15 CEST
        ("Europe/Paris", "*/15 * * * *", "2026-03-29T00:40:00Z", "2026-03-29T00:45:00Z"),
        ("Europe/Paris", "*/15 * * * *", "2026-03-29T00:45:00Z", "2026-03-29T01:00:00Z"),
        ("Europe/Paris", "*/15 * * * *", "2026-03-29T01:00:00Z", "2026-03-29T01:15:00Z"),
        // Paris fall back 2026-10-25: 03:00 CEST → 02:00 CET at 01:00Z; 02:xx occurs twice.
        // 02:30 fires once, at its first occurrence (CEST, 00:30Z), next on 10-26 (CET, 01:30Z)
        ("Europe/Paris", "30 2 * * *", "2026-10-24T12:00:00Z", "2026-10-25T00:30:00Z"),
        ("Europe/Paris", "30 2 * * *", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"),
        ("Europe/Paris", "30 2 * * *", "2026-10-25T01:10:00Z", "2026-10-26T01:30:00Z"),
        // hourly: 02:00 CEST (00:00Z), not again at 02:00 CET, then 03:00 CET (02:00Z)
        ("Europe/Paris", "0 * * * *", "2026-10-24T23:30:00Z", "2026-10-25T00:00:00Z"),
        ("Europe/Paris", "0 * * * *", "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z"),
        // from inside the second pass (02:20 CET = 01:20Z): next is 03:00 CET
        ("Europe/Paris", "*/10 * * * *", "2026-10-25T01:20:00Z", "2026-10-25T02:00:00Z"),
        // 03:00 local exists once on fall-back day (CET)
        ("Europe/Paris", "0 3 * * *", "2026-10-24T12:00:00Z", "2026-10-25T02:00:00Z"),
        // New York spring forward 2026-03-08: 02:00 EST → 03:00 EDT at 07:00Z
        ("America/New_York", "30 2 * * *", "2026-03-07T12:00:00Z", "2026-03-08T07:00:00Z"),
        ("America/New_York", "30 2 * * *", "2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"),
        ("America/New_York", "0 9 * * 1-5", "2026-03-06T14:00:00Z", "2026-03-09T13:00:00Z"),
        ("America/New_York", "0 9 * * 1-5", "2026-03-05T15:00:00Z", "2026-03-06T14:00:00Z"),
        // New York fall back 2026-11-01: 02:00 EDT → 01:00 EST at 06:00Z; 01:30 once (EDT, 05:30Z)
        ("America/New_York", "30 1 * * *", "2026-10-31T12:00:00Z", "2026-11-01T05:30:00Z"),
        ("America/New_York", "30 1 * * *", "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"),
        ("America/New_York", "0 0 * * *", "2026-11-01T03:00:00Z", "2026-11-01T04:00:00Z"),
        ("America/New_York", "0 0 * * *", "2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z"),
        // midnight on New Year's Eve in New York = 05:00Z
        ("America/New_York", "@yearly", "2026-06-01T00:00:00Z", "2027-01-01T05:00:00Z"),
    ]

    @Test(arguments: 0..<cases.count) func next(_ i: Int) throws {
        let (zoneName, text, after, expected) = Self.cases[i]
        let zone = try TimeZoneInfo.named(zoneName)
        let got = cron(text).next(after: utc(after), in: zone)
        #expect(got.map(Time.rfc3339) == expected, "\(zoneName) \(text) after \(after)")
    }

    @Test func everyMinuteAcrossParisDSTIsMonotonicAndFiresOncePerLocalMinute() {
        let c = cron("* * * * *")
        // Spring: 59 CET minutes + 1 gap instant + CEST minutes, all distinct, one minute apart
        var t = utc("2026-03-29T00:00:00Z")
        var fires: [Int64] = []
        while t < utc("2026-03-29T02:00:00Z") {
            guard let n = c.next(after: t, in: Self.paris) else { break }
            fires.append(n)
            t = n
        }
        #expect(fires.count == 120)
        #expect(zip(fires, fires.dropFirst()).allSatisfy { $1 - $0 == 60 })
        // Autumn: the repeated hour (01:00Z–02:00Z, 02:xx CET) does not fire again
        t = utc("2026-10-25T00:00:00Z")
        fires = []
        while t < utc("2026-10-25T03:00:00Z") {
            guard let n = c.next(after: t, in: Self.paris) else { break }
            fires.append(n)
            t = n
        }
        #expect(fires.count == 120)
        #expect(!fires.contains { $0 > utc("2026-10-25T00:59:00Z") && $0 < utc("2026-10-25T02:00:00Z") })
    }
}
