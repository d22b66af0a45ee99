import Core
import Store

/// SLA reports (SPEC §13): the figures of `SLACalculator` for one monitor or
/// many, from incidents (downtime, count, MTTR), maintenance windows and the
/// roll-ups (check counts). Raw results are read only after the roll-up
/// horizon, so a range reaching past raw retention still has every figure.
extension MonitoringService {
    /// The longest range a report may cover.
    public static let slaMaxSeconds: Int64 = 400 * 86_400

    public func sla(monitorID: Int64, from: Int64, to: Int64, now: Int64 = Time.now()) throws -> SLAFigures {
        _ = try find(monitorID)
        let all = try slaFigures(monitorID: monitorID, from: from, to: to, now: now)
        guard let one = all.first else { throw MonitoringError.notFound("monitor \(monitorID)") }
        return one
    }

    /// Every monitor (or those with all of `tags`), by id.
    public func slaReport(from: Int64, to: Int64, tags: [String] = [], now: Int64 = Time.now()) throws -> [SLAFigures] {
        let all = try slaFigures(monitorID: nil, from: from, to: to, now: now)
        guard !tags.isEmpty else { return all }
        let wanted = try database.read { c in
            var ids: Set<Int64>?
            for tag in tags {
                let tagged = Set(try MonitorTags.monitorIDs(c, anyOf: [tag]))
                ids = ids.map { $0.intersection(tagged) } ?? tagged
            }
            return ids ?? []
        }
        return all.filter { wanted.contains($0.monitorID) }
    }

    private func slaFigures(monitorID: Int64?, from: Int64, to: Int64, now: Int64) throws -> [SLAFigures] {
        let hourlyDays = settings.retention.hourlyDays
        return try database.read { c in
            let layers = Self.layers(from: from, to: to, now: now, horizon: Int64(try Meta.get(c, "rollup_horizon") ?? "0") ?? 0,
                                     hourlyDays: hourlyDays)
            let counts = try Reports.checkCounts(c, monitorID: monitorID, layers: layers)
            var downs: [Int64: [(openedAt: Int64, closedAt: Int64?)]] = [:]
            for d in try Reports.downIntervals(c, monitorID: monitorID, from: from, to: to) {
                downs[d.monitorID, default: []].append((d.openedAt, d.closedAt))
            }
            let windows = try maintenanceIntervals(c, from: from, to: to)
            return counts.map { row in
                let mine = windows.filter { $0.monitors.contains(row.monitorID) }.map { (start: $0.start, end: $0.end) }
                return SLACalculator.figures(monitorID: row.monitorID, name: row.name, from: from, to: to, createdAt: row.createdAt,
                                             now: now, down: downs[row.monitorID] ?? [], maintenance: mine, checks: row.checks)
            }
        }
    }

    /// Where each part of [from, to) is counted, without overlap: daily
    /// roll-ups for the whole UTC days the job has closed (24 times fewer
    /// rows than hours), hourly roll-ups for the hours around them up to the
    /// roll-up horizon, raw results after it. Past hourly retention only
    /// daily rows are left, so there a day counts when it begins inside the
    /// range; a roll-up always counts when its bucket begins inside it.
    static func layers(from: Int64, to: Int64, now: Int64, horizon: Int64, hourlyDays: Int64) -> Reports.Layers {
        let day: Int64 = 86_400
        let closedDays = horizon / day * day                          // days the job has closed into daily rows
        let hourlyStart = (now - hourlyDays * day + day - 1) / day * day  // the first whole day with its hours kept
        let dailyFrom = from < hourlyStart ? from : (from + day - 1) / day * day
        let dailyTo = max(dailyFrom, min(to <= hourlyStart ? to : to / day * day, closedDays))
        // Hours exist only inside hourly retention.
        let hoursEnd = to <= hourlyStart ? from : max(from, min(to, horizon))
        let rawFrom = max(from, horizon)
        return Reports.Layers(daily: dailyFrom..<dailyTo, hourlyHead: from..<max(from, min(dailyFrom, hoursEnd)),
                              hourlyTail: dailyTo..<max(dailyTo, hoursEnd), rawMs: (rawFrom * 1000)..<(max(rawFrom, to) * 1000))
    }

    /// The maintenance that applies in [from, to), with the monitors each
    /// covers, flattened per interval for reports (the read itself is
    /// `MaintenanceCoverage`, shared with uptime and the daily bars).
    func maintenanceIntervals(_ c: Connection, from: Int64, to: Int64) throws -> [(monitors: MonitorSelection, start: Int64, end: Int64)] {
        // A recurring window contributes each occurrence (clipped to the range).
        try MaintenanceCoverage.overlapping(c, from: from, to: to).flatMap { w in
            w.intervals(from: from, to: to).map { (monitors: w.monitors, start: $0.start, end: $0.end) }
        }
    }
}
