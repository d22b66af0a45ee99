import Core
import Store

/// Uptime over a period: raw results where they are kept, hourly roll-ups
/// before that, maintenance excluded.
extension MonitoringService {
    public static let uptimePeriods: [String: Int64] = ["24h": 86_400, "7d": 7 * 86_400, "30d": 30 * 86_400, "90d": 90 * 86_400]

    public func uptime(monitorID: Int64, seconds: Int64, now: Int64 = Time.now()) throws -> UptimeSummary {
        _ = try find(monitorID)
        // Results are stamped in whole seconds, so the period ends after the
        // current second: `[now + 1 - seconds, now + 1)`. Ending at `now`
        // (exclusive) left out every check recorded in the current second,
        // e.g. one just run with check-now.
        let to = now + 1
        let from = to - seconds
        return try database.read { c in
            // Roll-ups cover whole hours up to the horizon the retention job
            // has reached; raw results cover the rest.
            let horizon = max(from, Int64(try Meta.get(c, "rollup_horizon") ?? "0") ?? 0)
            var samples: [UptimeSample] = []
            if horizon > from {
                for row in try CheckResults.rollups(c, monitorID: monitorID, resolution: 3600, from: from - from % 3600, to: horizon) {
                    if let rollup = Self.rollup(row) { samples.append(.rollup(rollup)) }
                }
            }
            for r in try CheckResults.range(c, monitorID: monitorID, fromMs: horizon * 1000, toMs: to * 1000) {
                samples.append(.result(at: r.atMs / 1000, outcome: SampleOutcome(rawValue: r.status) ?? .down,
                                       latencyMs: r.latencyMs.map(Int.init)))
            }
            // A recurring window contributes its occurrences in the period.
            let windows = try MaintenanceCoverage.overlapping(c, from: from, to: to)
                .filter { $0.monitors.contains(monitorID) }
                .flatMap { $0.intervals(from: from, to: to) }
            return UptimeCalculator.summarize(samples: samples, maintenance: windows, from: from, to: to)
        }
    }

    static func rollup(_ r: RollupRecord) -> UptimeRollup? {
        guard let histogram = LatencyHistogram(encoded: r.histogram) else { return nil }
        return UptimeRollup(start: r.bucketStart, upCount: Int(r.up), downCount: Int(r.down), degradedCount: Int(r.degraded),
                            latencySum: Int(r.latencySum), latencyCount: Int(r.latencyCount), histogram: histogram,
                            maintenanceCount: Int(r.inMaintenance))
    }
}
