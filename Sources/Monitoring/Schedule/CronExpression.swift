import Core

/// A cron expression that failed to parse. `description` names the field,
/// e.g. `minute: 61 is out of range 0-59`.
public struct CronError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `minute`, `hour`, `day-of-month`, `month`, `day-of-week`; nil for
    /// errors about the whole expression (field count, macros).
    public let field: String?
    public let message: String

    public init(field: String?, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { field.map { "\($0): \(message)" } ?? message }
}

/// A standard five-field cron expression (`minute hour day-of-month month
/// day-of-week`), as in Vixie cron / cronie:
///
/// - `*`, single values, lists (`1,15`), ranges (`9-17`), steps (`*/5`,
///   `1-30/2`; `a/n` means `a-max/n`), month names `JAN`…`DEC` and weekday
///   names `SUN`…`SAT` (case-insensitive, also inside ranges: `MON-FRI`);
///   day-of-week 0 and 7 are both Sunday.
/// - Macros `@yearly` (= `@annually`), `@monthly`, `@weekly`, `@daily`
///   (= `@midnight`), `@hourly`. `@reboot` has no schedule and is rejected.
/// - Day semantics: when both day-of-month and day-of-week are restricted, a
///   day matches if EITHER matches (`0 0 1,15 * MON` = the 1st, the 15th and
///   every Monday). As in Vixie cron, a field counts as unrestricted when it
///   starts with `*` (so `*/2` in day-of-month still ANDs with day-of-week).
///
/// Fire times are computed in a `TimeZoneInfo` (see `next(after:in:)` for
/// daylight-saving behaviour).
public struct CronExpression: Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    // Bit i set = value i allowed.
    let minutes: UInt64
    let hours: UInt64
    let daysOfMonth: UInt64  // bits 1…31
    let months: UInt64       // bits 1…12
    let daysOfWeek: UInt64   // bits 0…6 (7 folded into 0)
    let dayOfMonthStar: Bool
    let dayOfWeekStar: Bool

    /// How far `next(after:in:)` looks before answering nil. Eight years
    /// covers the longest gap between two February 29ths (2096 → 2104).
    public static let searchYears = 8

    public var description: String { text }

    public init(_ text: String) throws(CronError) {
        self.text = text
        var trimmed = Substring(text)
        while let c = trimmed.first, c == " " || c == "\t" { trimmed = trimmed.dropFirst() }
        while let c = trimmed.last, c == " " || c == "\t" { trimmed = trimmed.dropLast() }
        var source = String(trimmed)
        if source.hasPrefix("@") {
            switch source.lowercased() {
            case "@yearly", "@annually": source = "0 0 1 1 *"
            case "@monthly": source = "0 0 1 * *"
            case "@weekly": source = "0 0 * * 0"
            case "@daily", "@midnight": source = "0 0 * * *"
            case "@hourly": source = "0 * * * *"
            case "@reboot": throw CronError(field: nil, "'@reboot' has no schedule and is not supported")
            default: throw CronError(field: nil, "unknown macro '\(source)'")
            }
        }
        let fields = source.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard !fields.isEmpty else { throw CronError(field: nil, "empty cron expression") }
        guard fields.count == 5 else {
            throw CronError(field: nil,
                            "expected 5 fields (minute hour day-of-month month day-of-week), got \(fields.count)")
        }
        minutes = try Self.parseField(fields[0], .minute)
        hours = try Self.parseField(fields[1], .hour)
        daysOfMonth = try Self.parseField(fields[2], .dayOfMonth)
        months = try Self.parseField(fields[3], .month)
        var dow = try Self.parseField(fields[4], .dayOfWeek)
        if dow & (1 << 7) != 0 { dow = (dow & ~(1 << 7)) | 1 }
        daysOfWeek = dow
        dayOfMonthStar = fields[2].hasPrefix("*")
        dayOfWeekStar = fields[4].hasPrefix("*")
    }

    // MARK: Parsing

    enum Field {
        case minute, hour, dayOfMonth, month, dayOfWeek

        var name: String {
            switch self {
            case .minute: return "minute"
            case .hour: return "hour"
            case .dayOfMonth: return "day-of-month"
            case .month: return "month"
            case .dayOfWeek: return "day-of-week"
            }
        }

        var bounds: ClosedRange<Int> {
            switch self {
            case .minute: return 0...59
            case .hour: return 0...23
            case .dayOfMonth: return 1...31
            case .month: return 1...12
            case .dayOfWeek: return 0...7
            }
        }

        /// What `*` stands for (day-of-week: 0-6, so 7 is not a duplicate).
        var starRange: ClosedRange<Int> { self == .dayOfWeek ? 0...6 : bounds }

        var names: [String] {
            switch self {
            case .month: return ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
            case .dayOfWeek: return ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
            default: return []
            }
        }

        /// Value of the first name (JAN = 1, SUN = 0).
        var firstNameValue: Int { self == .month ? 1 : 0 }
    }

    static func parseField(_ text: Substring, _ field: Field) throws(CronError) -> UInt64 {
        func fail(_ message: String) -> CronError { CronError(field: field.name, message) }
        func value(_ token: Substring) throws(CronError) -> Int {
            if !token.isEmpty, token.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                guard token.utf8.count <= 4, let v = Int(token) else {
                    throw fail("\(token) is out of range \(field.bounds.lowerBound)-\(field.bounds.upperBound)")
                }
                guard field.bounds.contains(v) else {
                    throw fail("\(v) is out of range \(field.bounds.lowerBound)-\(field.bounds.upperBound)")
                }
                return v
            }
            if let i = field.names.firstIndex(of: token.uppercased()) { return i + field.firstNameValue }
            if token.isEmpty { throw fail("missing value") }
            throw fail("'\(token)' is not a valid value")
        }

        var bits: UInt64 = 0
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else { throw fail("empty item in list '\(text)'") }
            let pieces = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var step = 1
            if pieces.count == 2 {
                let s = pieces[1]
                guard !s.isEmpty, s.utf8.count <= 4, s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(s) else {
                    throw fail("'\(s)' is not a valid step")
                }
                guard n >= 1 else { throw fail("step must be at least 1") }
                step = n
            }
            let range = pieces[0]
            let low: Int, high: Int
            if range == "*" {
                low = field.starRange.lowerBound
                high = field.starRange.upperBound
            } else if let dash = range.firstIndex(of: "-") {
                low = try value(range[range.startIndex..<dash])
                high = try value(range[range.index(after: dash)...])
                guard low <= high else { throw fail("range \(range) is backwards (\(low) > \(high))") }
            } else {
                low = try value(range)
                // `a/n` runs from a to the field's maximum.
                high = pieces.count == 2 ? field.starRange.upperBound : low
            }
            for v in stride(from: low, through: high, by: step) { bits |= 1 << UInt64(v) }
        }
        return bits
    }

    // MARK: Matching

    /// Whether a local calendar day matches (Vixie rule for day-of-month vs day-of-week).
    func dayMatches(year: Int, month: Int, day: Int) -> Bool {
        let domOK = daysOfMonth & (1 << UInt64(day)) != 0
        let weekday = ScheduleCalendar.weekday(days: ScheduleCalendar.days(year: year, month: month, day: day))
        let dowOK = daysOfWeek & (1 << UInt64(weekday)) != 0
        if dayOfMonthStar || dayOfWeekStar { return domOK && dowOK }
        return domOK || dowOK
    }

    /// Whether a local wall-clock minute matches the expression.
    public func matches(year: Int, month: Int, day: Int, hour: Int, minute: Int) -> Bool {
        months & (1 << UInt64(month)) != 0 && hours & (1 << UInt64(hour)) != 0
            && minutes & (1 << UInt64(minute)) != 0 && dayMatches(year: year, month: month, day: day)
    }

    /// Smallest allowed value >= `from` in `set`, or nil.
    private static func nextValue(_ set: UInt64, from: Int) -> Int? {
        guard from < 64 else { return nil }
        let masked = set & (~UInt64(0) << UInt64(from))
        return masked == 0 ? nil : masked.trailingZeroBitCount
    }

    /// The first matching local wall-clock minute at or after the given one,
    /// skipping whole months, days and hours that cannot match.
    func nextLocalMatch(year: Int, month: Int, day: Int, hour: Int, minute: Int, lastYear: Int)
        -> (year: Int, month: Int, day: Int, hour: Int, minute: Int)? {
        var (y, mo, d, h, mi) = (year, month, day, hour, minute)
        while y <= lastYear {
            guard let m = Self.nextValue(months, from: mo), m <= 12 else {
                (y, mo, d, h, mi) = (y + 1, 1, 1, 0, 0)
                continue
            }
            if m != mo { (mo, d, h, mi) = (m, 1, 0, 0) }
            if d > ScheduleCalendar.daysIn(month: mo, year: y) {
                (mo, d, h, mi) = (mo + 1, 1, 0, 0)
                if mo > 12 { (y, mo) = (y + 1, 1) }
                continue
            }
            guard dayMatches(year: y, month: mo, day: d) else {
                (d, h, mi) = (d + 1, 0, 0)
                continue
            }
            guard let nh = Self.nextValue(hours, from: h), nh <= 23 else {
                (d, h, mi) = (d + 1, 0, 0)
                continue
            }
            if nh != h { (h, mi) = (nh, 0) }
            guard let nm = Self.nextValue(minutes, from: mi), nm <= 59 else {
                (h, mi) = (h + 1, 0)
                continue
            }
            return (y, mo, d, h, nm)
        }
        return nil
    }

    // MARK: Next fire time

    /// The first fire time strictly after `t` (Unix seconds), evaluating the
    /// expression on `zone`'s wall clock; nil if none within `searchYears`
    /// (e.g. `0 0 30 2 *`).
    ///
    /// Daylight-saving time:
    /// - Spring forward (a gap): a matching local time that does not exist
    ///   fires at the first instant after the gap (Paris 2026-03-29: `30 2 * * *`
    ///   fires at 03:00 CEST = 01:00Z), like cronie does for jobs at fixed
    ///   times. Several matches inside one gap collapse into that one instant.
    /// - Fall back (an overlap): a local time that occurs twice fires once,
    ///   at its first occurrence (Paris 2026-10-25: `30 2 * * *` fires at
    ///   02:30 CEST = 00:30Z only). This holds for every expression, so
    ///   `*/5 * * * *` does not fire during the repeated hour (03:00 CEST →
    ///   02:00 CET) and resumes at 03:00 CET.
    public func next(after t: Int64, in zone: TimeZoneInfo) -> Int64? {
        let p = zone.localParts(t)
        var local = ScheduleCalendar.seconds(year: p.year, month: p.month, day: p.day, hour: p.hour,
                                             minute: p.minute, second: 0) + 60
        let lastYear = p.year + Self.searchYears
        while true {
            let days = ScheduleCalendar.floorDiv(local, 86400)
            let secs = Int(local - days * 86400)
            let c = ScheduleCalendar.civil(days: Int(days))
            guard let m = nextLocalMatch(year: c.year, month: c.month, day: c.day, hour: secs / 3600,
                                         minute: secs / 60 % 60, lastYear: lastYear)
            else { return nil }
            let matched = ScheduleCalendar.seconds(year: m.year, month: m.month, day: m.day, hour: m.hour,
                                                   minute: m.minute, second: 0)
            let instants = zone.utc(fromLocalSeconds: matched)
            let fire = instants.first ?? zone.firstInstant(atOrAfterLocalSeconds: matched)
            if fire > t { return fire }
            // Already past: the second pass of an overlap, or a gap's end we fired at.
            local = matched + 60
        }
    }

    /// Convenience: `next(after:in:)` in UTC.
    public func next(after t: Int64) -> Int64? { next(after: t, in: .utc) }
}
