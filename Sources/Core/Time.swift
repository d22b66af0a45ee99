#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock and monotonic time, and RFC 3339 UTC text (the API's only time
/// format). Implemented on libc so it costs no Foundation calendar machinery.
public enum Time {
    /// Seconds since the Unix epoch.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    /// Milliseconds since the Unix epoch.
    public static func nowMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Monotonic nanoseconds, for durations and timeouts.
    public static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// `2026-11-29T10:00:00Z`. Written byte by byte into the string's own
    /// storage: a 1,000-monitor status page formats 90,000 of these, and
    /// through `gmtime_r` and interpolated, padded pieces they were a fifth
    /// of its time (bench/pages.sh, perf). Years outside 0–9999 (never a
    /// real timestamp here) take the general path.
    public static func rfc3339(_ seconds: Int64) -> String {
        let c = civil(seconds)
        guard (0...9999).contains(c.year) else { return wide(c) }
        return String(unsafeUninitializedCapacity: 20) { b in
            writeDate(c, b)
            b[10] = 84; digits(c.hour, 2, b, 11); b[13] = 58; digits(c.minute, 2, b, 14); b[16] = 58
            digits(c.second, 2, b, 17); b[19] = 90
            return 20
        }
    }

    /// `2026-11-29`, the UTC day of `seconds` (ten bytes: a small string,
    /// no allocation).
    public static func date(_ seconds: Int64) -> String {
        let c = civil(seconds)
        guard (0...9999).contains(c.year) else { return String(wide(c).prefix(while: { $0 != "T" })) }
        return String(unsafeUninitializedCapacity: 10) { b in
            writeDate(c, b)
            return 10
        }
    }

    /// `YYYY-MM-DD` into the first ten bytes of `b` (a year of 0–9999).
    private static func writeDate(_ c: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int),
                                  _ b: UnsafeMutableBufferPointer<UInt8>) {
        digits(c.year, 4, b, 0); b[4] = 45; digits(c.month, 2, b, 5); b[7] = 45; digits(c.day, 2, b, 8)
    }

    /// The UTC calendar fields of `seconds`.
    static func civil(_ seconds: Int64) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        // Floor division without overflow at Int64's ends.
        var (days, rest) = Int(seconds).quotientAndRemainder(dividingBy: 86400)
        if rest < 0 { days -= 1; rest += 86400 }
        let date = civil(days: days)
        return (date.year, date.month, date.day, rest / 3600, rest % 3600 / 60, rest % 60)
    }

    /// The civil date of a day number since 1970-01-01 (H. Hinnant's
    /// civil_from_days, the inverse of `daysFromCivil`).
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func digits(_ value: Int, _ width: Int, _ b: UnsafeMutableBufferPointer<UInt8>, _ at: Int) {
        var v = value
        for i in stride(from: at + width - 1, through: at, by: -1) {
            b[i] = UInt8(48 + v % 10)
            v /= 10
        }
    }

    private static func wide(_ c: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)) -> String {
        "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))Z"
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 IMF-fixdate, for `Date`).
    public static func httpDate(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(days[Int(parts.tm_wday)]), \(pad(Int(parts.tm_mday), 2)) \(months[Int(parts.tm_mon)]) "
            + "\(pad(Int(parts.tm_year) + 1900, 4)) \(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):"
            + "\(pad(Int(parts.tm_sec), 2)) GMT"
    }

    /// Parses RFC 3339 (`2026-11-29T10:00:00Z`, fractional seconds and
    /// numeric offsets accepted) into Unix seconds; nil when malformed.
    public static func parseRFC3339(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= b.count else { return nil }
            var v = 0
            for i in from..<(from + len) {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard let year = num(0, 4), b[4] == 45, let month = num(5, 2), b[7] == 45, let day = num(8, 2),
              b[10] == 84 || b[10] == 116, let hour = num(11, 2), b[13] == 58, let minute = num(14, 2),
              b[16] == 58, let second = num(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        if i < b.count && b[i] == 46 {
            i += 1
            let start = i
            while i < b.count && b[i] >= 48 && b[i] <= 57 { i += 1 }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            guard let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = num(i + 4, 2),
                  oh < 24, om < 60 else { return nil }
            offset = (oh * 3600 + om * 60) * (b[i] == 43 ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offset)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
