import Core
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct TimeTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"),
        (784_111_777, "1994-11-06T08:49:37Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_795_946_400, "2026-11-29T10:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
    ] as [(Int64, String)])
    func rfc3339(seconds: Int64, text: String) {
        #expect(Time.rfc3339(seconds) == text)
        #expect(Time.parseRFC3339(text) == seconds)
    }

    @Test(arguments: [
        (Int64(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_795_946_400, "Sun, 29 Nov 2026 10:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
    ] as [(Int64, String)])
    func httpDate(seconds: Int64, text: String) {
        #expect(Time.httpDate(seconds) == text)
    }

    @Test(arguments: [
        ("1994-11-06T08:49:37Z", Int64(784_111_777)),
        ("1994-11-06t08:49:37z", 784_111_777),
        ("1994-11-06T08:49:37.5Z", 784_111_777),
        ("1994-11-06T08:49:37.123456789Z", 784_111_777),
        ("1994-11-06T09:49:37+01:00", 784_111_777),
        ("1994-11-06T03:19:37-05:30", 784_111_777),
        ("1994-11-06T08:49:37+00:00", 784_111_777),
        ("1994-11-06T08:49:37-00:00", 784_111_777),
        ("1994-11-06T09:49:37.25+01:00", 784_111_777),
        ("1994-11-07T08:48:37+23:59", 784_111_777),
        ("2016-12-31T23:59:60Z", 1_483_228_799),          // leap second is clamped to :59
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("2000-02-29T00:00:00Z", 951_782_400),
        ("1969-12-31T23:59:59Z", -1),
        ("0000-01-01T00:00:00Z", -62_167_219_200),
    ] as [(String, Int64)])
    func parseValid(text: String, expected: Int64) {
        #expect(Time.parseRFC3339(text) == expected)
    }

    @Test(arguments: [
        "",
        "1994-11-06T08:49:37",             // missing zone
        "1994-11-06T08:49:37 ",
        "1994-11-06 08:49:37Z",            // space instead of T
        "1994-11-06T08:49Z",
        "94-11-06T08:49:37Z",
        "1994/11/06T08:49:37Z",
        "2026-02-30T00:00:00Z",            // Feb 30
        "2023-02-29T00:00:00Z",            // not a leap year
        "1900-02-29T00:00:00Z",            // century, not a leap year
        "2026-04-31T00:00:00Z",
        "2026-00-10T00:00:00Z",
        "2026-13-10T00:00:00Z",
        "2026-11-00T00:00:00Z",
        "2026-11-32T00:00:00Z",
        "2026-11-29T24:00:00Z",            // hour 24
        "2026-11-29T10:60:00Z",
        "2026-11-29T10:00:61Z",
        "2026-11-29T10:00:00.Z",           // fraction without digits
        "2026-11-29T10:00:00,5Z",
        "2026-11-29T10:00:00+0100",        // offset without colon
        "2026-11-29T10:00:00+01",
        "2026-11-29T10:00:00+01:0",
        "2026-11-29T10:00:00+24:00",
        "2026-11-29T10:00:00+01:60",
        "2026-11-29T10:00:00Zjunk",
        "2026-11-29T10:00:00+01:00Z",
        "2026-11-29T10:00:00UTC",
        "+2026-11-29T10:00:00Z",
        "2026-1a-29T10:00:00Z",
        "2026-11-29T10:00:00Ż",
    ])
    func parseInvalid(text: String) {
        #expect(Time.parseRFC3339(text) == nil)
    }

    @Test(arguments: [
        (1970, 1, 1, 0),
        (1969, 12, 31, -1),
        (2000, 2, 29, 11_016),
        (2000, 3, 1, 11_017),
        (2026, 11, 29, 20_786),
        (1600, 3, 1, -135_080),
        (1, 1, 1, -719_162),
        (0, 3, 1, -719_468),
    ])
    func daysFromCivil(year: Int, month: Int, day: Int, days: Int) {
        #expect(Time.daysFromCivil(year: year, month: month, day: day) == days)
    }

    /// Every day over four centuries follows the previous one.
    @Test func daysFromCivilIsContinuous() {
        let lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var expected = Time.daysFromCivil(year: 1800, month: 1, day: 1)
        for year in 1800..<2200 {
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            for month in 1...12 {
                let n = month == 2 && leap ? 29 : lengths[month - 1]
                for day in 1...n {
                    if Time.daysFromCivil(year: year, month: month, day: day) != expected {
                        Issue.record("\(year)-\(month)-\(day)")
                        return
                    }
                    expected += 1
                }
            }
        }
    }

    @Test func rfc3339RoundTripsOverManyInstants() {
        var t: Int64 = -2_208_988_800   // 1900-01-01
        while t < 4_102_444_800 {       // 2100-01-01
            if Time.parseRFC3339(Time.rfc3339(t)) != t {
                Issue.record("round trip failed at \(t)")
                return
            }
            t += 86_400 * 7 + 3_661
        }
    }

    /// The byte-written text agrees with libc's `gmtime_r` over four
    /// centuries (a step that is not a whole day visits every second of the
    /// clock face), and both ends of Int64 give text instead of a trap.
    @Test func rfc3339AgreesWithGmtime() {
        func reference(_ seconds: Int64) -> String {
            var t = time_t(seconds)
            var p = tm()
            gmtime_r(&t, &p)
            func pad(_ v: Int32, _ w: Int) -> String {
                let s = String(v)
                return String(repeating: "0", count: max(0, w - s.count)) + s
            }
            return "\(pad(p.tm_year + 1900, 4))-\(pad(p.tm_mon + 1, 2))-\(pad(p.tm_mday, 2))T"
                + "\(pad(p.tm_hour, 2)):\(pad(p.tm_min, 2)):\(pad(p.tm_sec, 2))Z"
        }
        var t: Int64 = -11_676_096_000   // 1600-01-01
        while t < 16_725_225_600 {        // 2500-01-01
            let text = Time.rfc3339(t)
            if text != reference(t) || Time.date(t) != String(text.prefix(10)) {
                Issue.record("\(t): \(text), gmtime says \(reference(t)), date \(Time.date(t))")
                return
            }
            t += 86_400 * 3 + 3_607
        }
        #expect(Time.date(1_795_946_400) == "2026-11-29")
        #expect(!Time.rfc3339(.max).isEmpty)
        #expect(!Time.rfc3339(.min).isEmpty)
        #expect(!Time.date(.min).isEmpty)
    }
}
