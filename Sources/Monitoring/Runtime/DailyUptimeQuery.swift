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

    /// Counts a roll-up row (daily or hourly) into this day.
    mutating func add(_ r: RollupRecord) {
        up += Int(r.up)
        degraded += Int(r.degraded)
        down += Int(r.down)
        maintenance += Int(r.inMaintenance)
    }
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
            // Every read is one statement per chunk of monitors, not one per
            // monitor (a status page of 1,000 made 3,000 before, issue 20).
            // Closed days come from the cache when this span was read before.
            let span = first..<dailyUntil
            let closedDays = Int((dailyUntil - first) / day)
            var (closed, missing) = closedDaysCache.lookup(monitorIDs, span: span)
            if !missing.isEmpty {
                let daily = closedDays > 0
                    ? try BatchReads.rollups(c, monitorIDs: missing, resolution: day, from: first, to: dailyUntil) : [:]
                var read: [Int64: [DailyUptime]] = [:]
                for id in missing {
                    var byDay = (0..<closedDays).map { DailyUptime(dayStart: first + Int64($0) * day) }
                    for r in daily[id] ?? [] {
                        let i = Int((r.bucketStart - first) / day)
                        guard r.bucketStart >= first, i < closedDays else { continue }
                        byDay[i].add(r)
                    }
                    read[id] = byDay
                }
                closedDaysCache.store(read, span: span)
                closed.merge(read) { _, new in new }
            }
            let hourly = hourlyUntil > dailyUntil
                ? try BatchReads.rollups(c, monitorIDs: monitorIDs, resolution: 3600, from: dailyUntil, to: hourlyUntil) : [:]
            // Raw results are counted by the database per day and status for
            // monitors no window touches (the usual case); the others are read
            // one by one, each result checked against its windows.
            let covered = Set(monitorIDs.filter { id in windows.contains { !$0.intervals.isEmpty && $0.monitors.contains(id) } })
            var counted: [Int64: [BatchReads.DayCount]] = [:]
            for n in try BatchReads.dailyCounts(c, monitorIDs: monitorIDs.filter { !covered.contains($0) }, dayZero: first,
                                                fromMs: rawFrom * 1000, toMs: end * 1000) {
                counted[n.monitorID, default: []].append(n)
            }
            var out: [Int64: [DailyUptime]] = [:]
            for id in monitorIDs {
                var byDay = (closed[id] ?? (0..<closedDays).map { DailyUptime(dayStart: first + Int64($0) * day) })
                    + (closedDays..<days).map { DailyUptime(dayStart: first + Int64($0) * day) }
                func slot(_ t: Int64) -> Int? {
                    let i = Int((t - first) / day)
                    return t >= first && i < days ? i : nil
                }
                func add(_ status: String, inMaintenance: Bool, count: Int, at i: Int) {
                    if inMaintenance {
                        byDay[i].maintenance += count
                        return
                    }
                    switch SampleOutcome(rawValue: status) ?? .down {
                    case .up: byDay[i].up += count
                    case .degraded: byDay[i].degraded += count
                    case .down: byDay[i].down += count
                    }
                }
                for r in hourly[id] ?? [] {
                    if let i = slot(r.bucketStart) { byDay[i].add(r) }
                }
                if covered.contains(id) {
                    let mine = windows.filter { $0.monitors.contains(id) }.flatMap(\.intervals)
                    for r in try CheckResults.range(c, monitorID: id, fromMs: rawFrom * 1000, toMs: end * 1000) {
                        let at = r.atMs / 1000
                        guard let i = slot(at) else { continue }
                        add(r.status, inMaintenance: r.inMaintenance || UptimeCalculator.inMaintenance(at, windows: mine),
                            count: 1, at: i)
                    }
                } else {
                    for n in counted[id] ?? [] where n.day >= 0 && n.day < days {
                        add(n.status, inMaintenance: n.inMaintenance, count: n.count, at: n.day)
                    }
                }
                out[id] = byDay
            }
            return out
        }
    }
}
