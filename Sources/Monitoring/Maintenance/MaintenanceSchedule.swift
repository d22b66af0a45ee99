import Core
import Store

/// When a maintenance window is in force (SPEC §5, §12), pure: every
/// question takes the instant it is asked about, so callers inject the clock.
///
/// - One-off: `[startsAt, endsAt)`.
/// - Recurring: an occurrence starts at each fire time `f` of the cron
///   expression (the heartbeat dialect, evaluated on the zone's wall clock)
///   with `startsAt ≤ f < endsAt`, and lasts `duration` seconds of real time,
///   cut at `endsAt` (the series ends there, even mid-occurrence). So every
///   occurrence lies inside the series' bounds `[startsAt, endsAt)`.
/// - Daylight saving is `CronExpression.next(after:in:)`'s: a start inside a
///   spring-forward gap begins when the gap ends (02:30 Berlin on the last
///   Sunday of March → 03:00 CEST); a start in the repeated hour of a fall
///   back happens once, at its first pass. The duration is elapsed time, so a
///   02:00 two-hour occurrence on the fall-back night ends at 03:00 CET.
public struct MaintenanceSchedule: Sendable {
    /// One occurrence (or a one-off window): `[start, end)`.
    public struct Interval: Sendable, Equatable, CustomStringConvertible {
        public var start: Int64
        public var end: Int64
        public init(start: Int64, end: Int64) {
            self.start = start
            self.end = end
        }
        public func contains(_ t: Int64) -> Bool { t >= start && t < end }
        public var description: String { "[\(Time.rfc3339(start)), \(Time.rfc3339(end)))" }
    }

    enum Kind: Sendable {
        case once
        case recurring(cron: CronExpression, zone: TimeZoneInfo, duration: Int64)
        /// A stored expression that no longer parses: no occurrences (it was
        /// validated when saved, so only a changed parser gets here).
        case never
    }

    public let startsAt: Int64
    /// nil: no end (a series only).
    public let endsAt: Int64?
    let kind: Kind

    /// Longest occurrence the API accepts (`duration_minutes` ≤ 10080).
    public static let maxDurationSeconds: Int64 = 10_080 * 60

    public static func once(startsAt: Int64, endsAt: Int64) -> MaintenanceSchedule {
        MaintenanceSchedule(startsAt: startsAt, endsAt: endsAt, kind: .once)
    }

    public static func recurring(startsAt: Int64, endsAt: Int64?, cron: CronExpression, zone: TimeZoneInfo,
                                 durationSeconds: Int64) -> MaintenanceSchedule {
        MaintenanceSchedule(startsAt: startsAt, endsAt: endsAt, kind: .recurring(cron: cron, zone: zone, duration: durationSeconds))
    }

    /// The schedule of a stored window. A zone that no longer loads (tzdata
    /// changed under us) falls back to UTC, as heartbeats do.
    public init(_ w: MaintenanceRecord) {
        startsAt = w.startsAt
        endsAt = w.endsAt
        guard let r = w.recurrence else {
            kind = w.endsAt == nil ? .never : .once
            return
        }
        guard let cron = try? CronExpression(r.cron), r.durationMinutes > 0 else {
            kind = .never
            return
        }
        kind = .recurring(cron: cron, zone: (try? TimeZoneInfo.named(r.timezone)) ?? .utc, duration: r.durationMinutes * 60)
    }

    init(startsAt: Int64, endsAt: Int64?, kind: Kind) {
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.kind = kind
    }

    public var isRecurring: Bool {
        if case .once = kind { return false }
        return true
    }

    /// The end of the series, or the far future for one without end.
    var seriesEnd: Int64 { endsAt ?? Int64.max / 4 }

    /// The occurrence in force at `t` (the earliest-started one when
    /// occurrences overlap), or nil.
    public func occurrence(at t: Int64) -> Interval? {
        switch kind {
        case .never: return nil
        case .once:
            let w = Interval(start: startsAt, end: seriesEnd)
            return w.contains(t) ? w : nil
        case .recurring(let cron, let zone, let duration):
            guard t >= startsAt, t < seriesEnd else { return nil }
            // A fire f is in force at t when t - duration < f ≤ t; the first
            // fire after max(t - duration, startsAt - 1) is the earliest such.
            guard let f = cron.next(after: max(t - duration, startsAt - 1), in: zone), f <= t else { return nil }
            return Interval(start: f, end: min(f + duration, seriesEnd))
        }
    }

    public func isActive(at t: Int64) -> Bool { occurrence(at: t) != nil }

    /// The answer of `isActive(at: t)` with the stretch of time around `t`
    /// over which it cannot change, `[from, until)`: the occurrence itself
    /// when active, else from `t` to the next start. The calendar keeps it
    /// so the result path evaluates the cron about once per change, not
    /// once per check result.
    public struct Decision: Sendable, Equatable {
        public var active: Bool
        public var from: Int64
        public var until: Int64
        public func covers(_ t: Int64) -> Bool { t >= from && t < until }
    }

    public func decide(at t: Int64) -> Decision {
        if let o = occurrence(at: t) { return Decision(active: true, from: o.start, until: o.end) }
        // No occurrence in force at t and none starts before `next`: a later
        // instant below `next` has none either (one in force there would
        // have started by t, or between t and `next`).
        return Decision(active: false, from: t, until: nextStart(after: t) ?? Int64.max)
    }

    /// The start of the next occurrence that has not begun at `t` (start > t),
    /// or nil when there is none (a one-off window already started, a series
    /// past its end).
    public func nextStart(after t: Int64) -> Int64? {
        switch kind {
        case .never: return nil
        case .once: return startsAt > t ? startsAt : nil
        case .recurring(let cron, let zone, _):
            guard let f = cron.next(after: max(t, startsAt - 1), in: zone), f < seriesEnd else { return nil }
            return f
        }
    }

    /// The occurrence in force at `t`, else the next one: what a status page
    /// lists as upcoming.
    public func currentOrNext(at t: Int64) -> Interval? {
        if let now = occurrence(at: t) { return now }
        guard let start = nextStart(after: t) else { return nil }
        return occurrence(at: start)
    }

    /// Sorted, disjoint intervals covering every occurrence that overlaps
    /// `[from, to)`, clipped to it (overlapping occurrences merged). Bounded:
    /// a cron fires at most once a minute, so a range of R seconds costs at
    /// most R/60 + duration/60 evaluations; callers ask for at most 90 days.
    public func intervals(from: Int64, to: Int64) -> [Interval] {
        guard from < to else { return [] }
        switch kind {
        case .never: return []
        case .once:
            let s = max(startsAt, from), e = min(seriesEnd, to)
            return s < e ? [Interval(start: s, end: e)] : []
        case .recurring(let cron, let zone, let duration):
            let stop = min(to, seriesEnd)
            var out: [Interval] = []
            var after = max(from - duration, startsAt - 1)
            while let f = cron.next(after: after, in: zone), f < stop {
                after = f
                let e = min(f + duration, seriesEnd, to)
                guard e > from else { continue }
                let s = max(f, from)
                if let last = out.last, s <= last.end {
                    out[out.count - 1].end = max(last.end, e)
                } else {
                    out.append(Interval(start: s, end: e))
                }
            }
            return out
        }
    }
}
