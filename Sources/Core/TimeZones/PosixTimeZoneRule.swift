/// A POSIX TZ string as found in TZif footers, e.g. `CET-1CEST,M3.5.0,M10.5.0/3`
/// or `<+0330>-3:30`. Supports `Mm.w.d`, `Jn` and `n` dates, and the RFC 8536
/// extensions (transition times from -167 to 167 hours).
struct PosixTimeZoneRule: Sendable, Equatable {
    enum DateRule: Sendable, Equatable {
        case julianNoLeap(Int)          // Jn, 1…365, February 29 never counted
        case zeroBased(Int)             // n, 0…365
        case monthWeekDay(Int, Int, Int)  // Mm.w.d
    }

    struct DaylightRule: Sendable, Equatable {
        var offset: Int         // seconds east
        var start: DateRule
        var startTime: Int      // seconds after local midnight, standard time
        var end: DateRule
        var endTime: Int        // seconds after local midnight, daylight time
    }

    var standardOffset: Int     // seconds east
    var daylight: DaylightRule?

    init?(_ text: String) {
        var s = Substring(text).utf8[...]
        func abbreviation() -> Bool {
            if s.first == 60 {  // <...>
                guard let close = s.firstIndex(of: 62) else { return false }
                let length = s.distance(from: s.startIndex, to: close) - 1
                s = s[s.index(after: close)...]
                return length >= 3
            }
            var n = 0
            while let c = s.first, (c >= 65 && c <= 90) || (c >= 97 && c <= 122) { s = s.dropFirst(); n += 1 }
            return n >= 3
        }
        func number() -> Int? {
            var v = 0, n = 0
            while let c = s.first, c >= 48 && c <= 57, n < 6 { v = v * 10 + Int(c - 48); s = s.dropFirst(); n += 1 }
            return n > 0 ? v : nil
        }
        /// [+-]hh[:mm[:ss]] in seconds.
        func time() -> Int? {
            var sign = 1
            if s.first == 43 { s = s.dropFirst() } else if s.first == 45 { sign = -1; s = s.dropFirst() }
            guard let h = number(), h <= 167 else { return nil }
            var total = h * 3600
            if s.first == 58 {
                s = s.dropFirst()
                guard let m = number(), m < 60 else { return nil }
                total += m * 60
                if s.first == 58 {
                    s = s.dropFirst()
                    guard let sec = number(), sec < 60 else { return nil }
                    total += sec
                }
            }
            return sign * total
        }
        func date() -> DateRule? {
            if s.first == 77 {  // M
                s = s.dropFirst()
                guard let m = number(), (1...12).contains(m), s.first == 46 else { return nil }
                s = s.dropFirst()
                guard let w = number(), (1...5).contains(w), s.first == 46 else { return nil }
                s = s.dropFirst()
                guard let d = number(), (0...6).contains(d) else { return nil }
                return .monthWeekDay(m, w, d)
            }
            if s.first == 74 {  // J
                s = s.dropFirst()
                guard let n = number(), (1...365).contains(n) else { return nil }
                return .julianNoLeap(n)
            }
            guard let n = number(), (0...365).contains(n) else { return nil }
            return .zeroBased(n)
        }
        func dateAndTime() -> (DateRule, Int)? {
            guard let d = date() else { return nil }
            var t = 7200
            if s.first == 47 {
                s = s.dropFirst()
                guard let parsed = time() else { return nil }
                t = parsed
            }
            return (d, t)
        }

        guard abbreviation(), let std = time() else { return nil }
        standardOffset = -std  // POSIX offsets are west-positive
        // `time()` takes the RFC 8536 transition-time range (±167 h); a UTC
        // offset must be a plausible one (RFC 8536 §3.2: more than -25 h,
        // less than 26 h), or every local time the zone gives is nonsense.
        guard Self.plausibleOffsets.contains(standardOffset) else { return nil }
        guard !s.isEmpty else { daylight = nil; return }
        guard abbreviation() else { return nil }
        var dstOffset = standardOffset + 3600
        if let c = s.first, c != 44 {
            guard let t = time() else { return nil }
            dstOffset = -t
        }
        guard Self.plausibleOffsets.contains(dstOffset) else { return nil }
        var start: (DateRule, Int) = (.monthWeekDay(3, 2, 0), 7200)  // POSIX default (US rules)
        var end: (DateRule, Int) = (.monthWeekDay(11, 1, 0), 7200)
        if s.first == 44 {
            s = s.dropFirst()
            guard let a = dateAndTime(), s.first == 44 else { return nil }
            s = s.dropFirst()
            guard let b = dateAndTime() else { return nil }
            start = a
            end = b
        }
        guard s.isEmpty else { return nil }
        daylight = DaylightRule(offset: dstOffset, start: start.0, startTime: start.1, end: end.0, endTime: end.1)
    }

    /// UTC offsets RFC 8536 §3.2 allows (seconds east).
    static let plausibleOffsets = -89_999...93_599

    /// Days since the epoch of a rule date in `year`.
    static func day(_ rule: DateRule, year: Int) -> Int {
        let jan1 = ScheduleCalendar.days(year: year, month: 1, day: 1)
        switch rule {
        case .julianNoLeap(let n):
            return jan1 + n - 1 + (ScheduleCalendar.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return jan1 + n
        case .monthWeekDay(let m, let w, let d):
            let first = ScheduleCalendar.days(year: year, month: m, day: 1)
            var day = first + (d - ScheduleCalendar.weekday(days: first) + 7) % 7 + (w - 1) * 7
            let last = first + ScheduleCalendar.daysIn(month: m, year: year) - 1
            while day > last { day -= 7 }
            return day
        }
    }

    /// Seconds east of UTC at `utc` under this rule.
    func offset(at utc: Int64) -> Int {
        guard let dst = daylight else { return standardOffset }
        let year = ScheduleCalendar.civil(days: Int(ScheduleCalendar.floorDiv(utc + Int64(standardOffset), 86400))).year
        // Start is given in standard time, end in daylight time.
        let start = Int64(Self.day(dst.start, year: year)) * 86400 + Int64(dst.startTime) - Int64(standardOffset)
        let end = Int64(Self.day(dst.end, year: year)) * 86400 + Int64(dst.endTime) - Int64(dst.offset)
        let inDST = start < end ? (utc >= start && utc < end) : !(utc >= end && utc < start)
        return inDST ? dst.offset : standardOffset
    }
}
