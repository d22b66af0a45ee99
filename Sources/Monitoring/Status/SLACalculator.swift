/// SLA figures of one monitor over a range, by time (SPEC §13), from its
/// `down` intervals and its maintenance intervals. Pure: the caller reads
/// the intervals.
///
/// - The measured span is [from, to) clipped to when the monitor existed and
///   to `now`: time before it was created, and the future, are neither up
///   nor down, so a monitor created mid-month is judged on the days it ran.
/// - Maintenance inside that span is left out of the denominator; downtime
///   is the time covered by a `down` incident (open ones until `now`) minus
///   what of it fell in maintenance.
/// - `uptime` = (span − maintenance − downtime) / (span − maintenance) in
///   percent, nil when nothing is left to measure.
public struct SLAFigures: Sendable, Equatable {
    public var monitorID: Int64
    public var name: String
    public var uptime: Double?
    public var downtimeSeconds: Int64
    public var maintenanceSeconds: Int64
    /// `down` incidents overlapping the range (open ones included).
    public var incidents: Int
    /// Mean time to recovery of the `down` incidents closed in the range
    /// (their whole duration); nil when none closed.
    public var mttrSeconds: Int64?
    public var checks: Int64

    public init(monitorID: Int64, name: String, uptime: Double?, downtimeSeconds: Int64, maintenanceSeconds: Int64,
                incidents: Int, mttrSeconds: Int64?, checks: Int64) {
        (self.monitorID, self.name, self.uptime, self.downtimeSeconds) = (monitorID, name, uptime, downtimeSeconds)
        (self.maintenanceSeconds, self.incidents, self.mttrSeconds, self.checks) = (maintenanceSeconds, incidents, mttrSeconds, checks)
    }
}

public enum SLACalculator {
    public typealias Interval = (start: Int64, end: Int64)

    public static func figures(monitorID: Int64, name: String, from: Int64, to: Int64, createdAt: Int64, now: Int64,
                               down: [(openedAt: Int64, closedAt: Int64?)], maintenance: [Interval], checks: Int64) -> SLAFigures {
        let start = max(from, createdAt)
        let end = min(to, now)
        let span: Interval = (start, max(start, end))
        let downs = merge(down.map { (start: $0.openedAt, end: $0.closedAt ?? now) }, within: span)
        let windows = merge(maintenance, within: span)
        let maintenanceSeconds = length(windows)
        let downtime = length(downs) - length(intersect(downs, windows))
        let measured = span.end - span.start - maintenanceSeconds
        let uptime = measured > 0 ? Double(measured - downtime) * 100 / Double(measured) : nil
        let touching = down.filter { $0.openedAt < to && ($0.closedAt.map { $0 > from } ?? true) }
        let closed = down.compactMap { d -> Int64? in
            guard let c = d.closedAt, c >= from, c < to else { return nil }
            return c - d.openedAt
        }
        let mttr = closed.isEmpty ? nil : Int64((Double(closed.reduce(0, +)) / Double(closed.count)).rounded())
        return SLAFigures(monitorID: monitorID, name: name, uptime: uptime, downtimeSeconds: downtime,
                          maintenanceSeconds: maintenanceSeconds, incidents: touching.count, mttrSeconds: mttr, checks: checks)
    }

    /// Sorted, non-overlapping, clipped to `span`, empty ones dropped.
    static func merge(_ intervals: [Interval], within span: Interval) -> [Interval] {
        let clipped = intervals.map { (start: max($0.start, span.start), end: min($0.end, span.end)) }
            .filter { $0.end > $0.start }.sorted { $0.start < $1.start }
        var out: [Interval] = []
        for i in clipped {
            if let last = out.last, i.start <= last.end {
                out[out.count - 1].end = max(last.end, i.end)
            } else {
                out.append(i)
            }
        }
        return out
    }

    static func length(_ intervals: [Interval]) -> Int64 { intervals.reduce(0) { $0 + $1.end - $1.start } }

    /// Both merged: one pass over each.
    static func intersect(_ a: [Interval], _ b: [Interval]) -> [Interval] {
        var out: [Interval] = []
        var i = 0, j = 0
        while i < a.count && j < b.count {
            let s = max(a[i].start, b[j].start), e = min(a[i].end, b[j].end)
            if e > s { out.append((s, e)) }
            if a[i].end < b[j].end { i += 1 } else { j += 1 }
        }
        return out
    }
}
