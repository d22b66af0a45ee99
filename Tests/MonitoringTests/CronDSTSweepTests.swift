import Testing
import Core
@testable import Monitoring

/// `next(after:in:)` against a minute-by-minute reference of the documented
/// DST rules, around every 2026 and 2040 (footer rule) transition of zones
/// with unusual transitions: half-hour DST (Lord Howe), transitions at 24:00
/// (Santiago, so midnight itself is skipped), negative times (Nuuk), negative
/// DST (Dublin), 2:45 (Chatham), southern hemisphere (Sydney).
@Suite struct CronDSTSweepTests {
    /// Reference: walk UTC minutes. A minute fires if its local reading
    /// matches and is that reading's first occurrence, or if it ends a
    /// spring-forward gap that skipped a matching local minute.
    /// The zone's offsets for each UTC minute of a window, so the reference is cheap.
    struct MinuteOffsets {
        let start: Int64  // a whole minute
        let offsets: [Int64]
        init(_ zone: TimeZoneInfo, from: Int64, to: Int64) {
            start = ScheduleCalendar.floorDiv(from, 60) * 60
            offsets = stride(from: start, through: to, by: 60).map { Int64(zone.offset(at: $0)) }
        }
        subscript(u: Int64) -> Int64 { offsets[Int((u - start) / 60)] }
        var end: Int64 { start + Int64(offsets.count - 1) * 60 }
    }

    /// nil: nothing before the end of the window.
    static func referenceNext(_ cron: CronExpression, after t: Int64, offsets: MinuteOffsets) -> Int64? {
        func matches(_ local: Int64) -> Bool {
            let days = ScheduleCalendar.floorDiv(local, 86400)
            let secs = Int(local - days * 86400)
            let c = ScheduleCalendar.civil(days: Int(days))
            return cron.matches(year: c.year, month: c.month, day: c.day, hour: secs / 3600, minute: secs / 60 % 60)
        }
        var u = (ScheduleCalendar.floorDiv(t, 60) + 1) * 60
        while u <= offsets.end {
            let o = offsets[u], before = offsets[u - 60]
            let local = u + o
            if before < o {  // local time jumped forward at u: readings [u + before, local) were skipped
                var m = u + before
                while m < local {
                    if matches(m) { return u }
                    m += 60
                }
            }
            if matches(local) {
                var first = true
                var v = u - 60
                while v >= max(offsets.start, u - 3 * 3600) {
                    if v + offsets[v] == local { first = false; break }
                    v -= 60
                }
                if first { return u }
            }
            u += 60
        }
        return nil
    }

    static let zones = ["Europe/Paris", "America/New_York", "Australia/Lord_Howe", "America/Santiago",
                        "America/Nuuk", "Europe/Dublin", "Australia/Sydney", "Pacific/Chatham"]
    static let expressions = ["30 2 * * *", "0 * * * *", "*/15 * * * *", "0 0 * * *", "45 1 * * 0",
                              "30 0 * * *", "15,45 * * * *"]

    @Test(arguments: zones) func matchesReferenceAroundTransitions(_ name: String) throws {
        let zone = try TimeZoneInfo.named(name)
        var transitions: [Int64] = []
        for year in [2026, 2040] {
            var t = Int64(ScheduleCalendar.days(year: year, month: 1, day: 1)) * 86400
            let end = Int64(ScheduleCalendar.days(year: year + 1, month: 1, day: 1)) * 86400
            while t < end {
                if zone.offset(at: t) != zone.offset(at: t + 900) {
                    var lo = t, hi = t + 900  // first instant with the new offset
                    while lo + 1 < hi {
                        let mid = (lo + hi) / 2
                        if zone.offset(at: mid) == zone.offset(at: t) { lo = mid } else { hi = mid }
                    }
                    transitions.append(hi)
                }
                t += 900
            }
        }
        #expect(transitions.count == 4, "\(name): \(transitions.map(Time.rfc3339))")
        for transition in transitions {
            let from = transition - 6 * 3600, to = transition + 6 * 3600
            let offsets = MinuteOffsets(zone, from: from - 4 * 3600, to: to + 26 * 3600)
            for text in Self.expressions {
                let cron = try CronExpression(text)
                var t = from
                while t < to {
                    let got = cron.next(after: t, in: zone)
                    let expected = Self.referenceNext(cron, after: t, offsets: offsets)
                        ?? got.flatMap { $0 > offsets.end ? $0 : nil }  // beyond the window
                    #expect(got == expected,
                            "\(name) '\(text)' after \(Time.rfc3339(t)): \(got.map(Time.rfc3339) ?? "nil") vs \(expected.map(Time.rfc3339) ?? "nil")")
                    if got != expected { return }
                    t += 29 * 60 + 7
                }
            }
        }
    }
}
