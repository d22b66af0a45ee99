import Core
import Store

/// One UTC day of a monitor's checks, for status pages.
public struct DailyUptime: Sendable, Equatable {
    /// Start of the day, Unix seconds (midnight UTC).
    public var dayStart: Int64
    /// Counts outside maintenance, and the checks inside it (excluded).
    public var up = 0, degraded = 0, down = 0, maintenance = 0

    public init(dayStart: Int64) { self.dayStart = dayStart }

    public var checks: Int { up + degraded + down }
    /// Percent, counted like the uptime API (degraded counts as up); nil
    /// when no check outside maintenance ran that day.
    public var uptime: Double? { checks == 0 ? nil : Double(up + degraded) * 100 / Double(checks) }
}

/// Daily uptime over the last `days` days (today included), read from the
/// same history the uptime API reads: daily roll-ups for days the retention
/// job has closed, hourly roll-ups for the hours after that, raw results
/// after the roll-up horizon. Maintenance is excluded like there: roll-up
/// rows already count it apart, raw results by their flag or a window.
extension MonitoringService {
    public func dailyUptime(monitorIDs: [Int64], days: Int = 90, now: Int64 = Time.now()) throws -> [Int64: [DailyUptime]] {
        let day: Int64 = 86_400
        let today = now - now % day
        let first = today - Int64(days - 1) * day
        let end = now + 1
        return try database.read { c in
            let horizon = Int64(try Meta.get(c, "rollup_horizon") ?? "0") ?? 0
            // Days before this one were closed into daily rows by the job.
            let dailyUntil = max(first, horizon - horizon % day)
            let hourlyUntil = max(dailyUntil, horizon)
            let rawFrom = max(first, hourlyUntil)
            // Only raw results need the windows (roll-ups count theirs):
            // occurrences after the roll-ups, expanded once for all monitors.
            let windows = try MaintenanceCoverage.overlapping(c, from: rawFrom, to: end).map {
                (intervals: $0.intervals(from: rawFrom, to: end), monitors: $0.monitors)
            }
            var out: [Int64: [DailyUptime]] = [:]
            for id in monitorIDs {
                var byDay = (0..<days).map { DailyUptime(dayStart: first + Int64($0) * day) }
                func slot(_ t: Int64) -> Int? {
                    let i = Int((t - first) / day)
                    return t >= first && i < days ? i : nil
                }
                func add(_ r: RollupRecord) {
                    guard let i = slot(r.bucketStart) else { return }
                    byDay[i].up += Int(r.up)
                    byDay[i].degraded += Int(r.degraded)
                    byDay[i].down += Int(r.down)
                    byDay[i].maintenance += Int(r.inMaintenance)
                }
                if dailyUntil > first {
                    for r in try CheckResults.rollups(c, monitorID: id, resolution: day, from: first, to: dailyUntil) { add(r) }
                }
                if hourlyUntil > dailyUntil {
                    for r in try CheckResults.rollups(c, monitorID: id, resolution: 3600, from: dailyUntil, to: hourlyUntil) { add(r) }
                }
                let mine = windows.filter { $0.monitors.contains(id) }.flatMap(\.intervals)
                for r in try CheckResults.range(c, monitorID: id, fromMs: rawFrom * 1000, toMs: end * 1000) {
                    let at = r.atMs / 1000
                    guard let i = slot(at) else { continue }
                    if r.inMaintenance || UptimeCalculator.inMaintenance(at, windows: mine) {
                        byDay[i].maintenance += 1
                        continue
                    }
                    switch SampleOutcome(rawValue: r.status) ?? .down {
                    case .up: byDay[i].up += 1
                    case .degraded: byDay[i].degraded += 1
                    case .down: byDay[i].down += 1
                    }
                }
                out[id] = byDay
            }
            return out
        }
    }
}
