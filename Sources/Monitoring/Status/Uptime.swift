/// The status of one recorded check, as uptime counts it.
public enum SampleOutcome: String, Sendable, Equatable {
    case up, down, degraded
}

/// One roll-up row (an hour or a day of one monitor's checks).
///
/// The counts cover only checks *outside* maintenance; `maintenanceCount`
/// counts the checks inside (excluded from everything else). Latency fields
/// cover the up and degraded checks outside maintenance that carried a
/// latency (a failed check's latency is usually its timeout, so it is left
/// out). Build it with `record(_:latencyMs:inMaintenance:)`.
public struct UptimeRollup: Sendable, Equatable {
    /// Start of the hour (or day) this row covers, Unix seconds.
    public var start: Int64
    public var upCount: Int
    public var downCount: Int
    public var degradedCount: Int
    public var latencySum: Int
    public var latencyCount: Int
    public var histogram: LatencyHistogram
    public var maintenanceCount: Int

    public init(start: Int64, upCount: Int = 0, downCount: Int = 0, degradedCount: Int = 0, latencySum: Int = 0,
                latencyCount: Int = 0, histogram: LatencyHistogram = LatencyHistogram(), maintenanceCount: Int = 0) {
        self.start = start
        self.upCount = upCount
        self.downCount = downCount
        self.degradedCount = degradedCount
        self.latencySum = latencySum
        self.latencyCount = latencyCount
        self.histogram = histogram
        self.maintenanceCount = maintenanceCount
    }

    /// Adds one check.
    public mutating func record(_ outcome: SampleOutcome, latencyMs: Int?, inMaintenance: Bool) {
        if inMaintenance {
            maintenanceCount += 1
            return
        }
        switch outcome {
        case .up: upCount += 1
        case .down: downCount += 1
        case .degraded: degradedCount += 1
        }
        if outcome != .down, let ms = latencyMs {
            latencySum += ms
            latencyCount += 1
            histogram.record(ms)
        }
    }

    /// Adds another row's counts (hourly rows → a daily row); keeps `start`.
    public mutating func merge(_ other: UptimeRollup) {
        upCount += other.upCount
        downCount += other.downCount
        degradedCount += other.degradedCount
        latencySum += other.latencySum
        latencyCount += other.latencyCount
        histogram += other.histogram
        maintenanceCount += other.maintenanceCount
    }
}

/// Input of `UptimeCalculator.summarize`: a raw check result or a roll-up row.
public enum UptimeSample: Sendable, Equatable {
    case result(at: Int64, outcome: SampleOutcome, latencyMs: Int?)
    case rollup(UptimeRollup)
}

/// `GET /api/monitors/{id}/uptime` numbers.
public struct UptimeSummary: Sendable, Equatable {
    /// Percent, 0–100; nil when no check counted.
    public var uptime: Double?
    /// Checks counted (outside maintenance).
    public var checks: Int
    public var avgLatencyMs: Int?
    public var p95LatencyMs: Int?
    /// Length of the union of the maintenance windows within the period.
    public var maintenanceSeconds: Int

    public init(uptime: Double?, checks: Int, avgLatencyMs: Int?, p95LatencyMs: Int?, maintenanceSeconds: Int) {
        self.uptime = uptime
        self.checks = checks
        self.avgLatencyMs = avgLatencyMs
        self.p95LatencyMs = p95LatencyMs
        self.maintenanceSeconds = maintenanceSeconds
    }
}

/// Uptime over a period, pure.
///
/// - Uptime is by **check count**, as Uptime Kuma computes it:
///   `(up + degraded) / all checks × 100` — degraded counts as up (the
///   service answered). Not by time: a monitor checked every 10 s and one
///   checked hourly are weighed per check.
/// - Only checks outside maintenance count: a raw result at `t` with
///   `start ≤ t < end` for some window is excluded; roll-up rows already
///   exclude theirs (`UptimeRollup.maintenanceCount`).
/// - The period is `[from, to)`: raw results by `at`, roll-up rows by
///   `start` (callers align periods to the rows they read).
/// - Latency: average and p95 over up/degraded checks with a latency. The
///   p95 is exact (nearest rank) when every sample is raw, else it comes
///   from the merged histograms (error bound in `LatencyHistogram`).
/// - `maintenanceSeconds`: the union of the windows (overlaps counted once),
///   clipped to `[from, to)`.
public enum UptimeCalculator {
    public static func summarize(samples: [UptimeSample], maintenance: [(start: Int64, end: Int64)],
                                 from: Int64, to: Int64) -> UptimeSummary {
        let windows = union(maintenance, from: from, to: to)
        var up = 0, down = 0, degraded = 0
        var latencySum = 0, latencyCount = 0
        var histogram = LatencyHistogram()
        var raw: [Int] = []
        var sawRollup = false

        for sample in samples {
            switch sample {
            case .result(let at, let outcome, let latencyMs):
                guard at >= from, at < to, !contains(windows, at) else { continue }
                switch outcome {
                case .up: up += 1
                case .down: down += 1
                case .degraded: degraded += 1
                }
                if outcome != .down, let ms = latencyMs {
                    latencySum += ms
                    latencyCount += 1
                    histogram.record(ms)
                    raw.append(ms)
                }
            case .rollup(let row):
                guard row.start >= from, row.start < to else { continue }
                up += row.upCount
                down += row.downCount
                degraded += row.degradedCount
                latencySum += row.latencySum
                latencyCount += row.latencyCount
                histogram += row.histogram
                sawRollup = true
            }
        }

        let checks = up + down + degraded
        let p95: Int?
        if sawRollup {
            p95 = histogram.percentile(0.95)
        } else if raw.isEmpty {
            p95 = nil
        } else {
            raw.sort()
            p95 = raw[max(0, Int((0.95 * Double(raw.count)).rounded(.up)) - 1)]
        }
        return UptimeSummary(
            uptime: checks == 0 ? nil : Double(up + degraded) * 100 / Double(checks),
            checks: checks,
            avgLatencyMs: latencyCount == 0 ? nil : (latencySum + latencyCount / 2) / latencyCount,
            p95LatencyMs: p95,
            maintenanceSeconds: Int(windows.reduce(Int64(0)) { $0 + ($1.end - $1.start) }))
    }

    /// Whether `t` falls in one of the windows (`start ≤ t < end`) — for
    /// callers building roll-up rows.
    public static func inMaintenance(_ t: Int64, windows: [(start: Int64, end: Int64)]) -> Bool {
        windows.contains { t >= $0.start && t < $0.end }
    }

    /// Sorted, disjoint windows covering the union of `windows` ∩ `[from, to)`.
    static func union(_ windows: [(start: Int64, end: Int64)], from: Int64, to: Int64) -> [(start: Int64, end: Int64)] {
        let clipped = windows
            .map { (start: max($0.start, from), end: min($0.end, to)) }
            .filter { $0.start < $0.end }
            .sorted { $0.start < $1.start }
        var merged: [(start: Int64, end: Int64)] = []
        for w in clipped {
            if let last = merged.last, w.start <= last.end {
                merged[merged.count - 1].end = max(last.end, w.end)
            } else {
                merged.append(w)
            }
        }
        return merged
    }

    private static func contains(_ sorted: [(start: Int64, end: Int64)], _ t: Int64) -> Bool {
        // Binary search: the last window starting at or before t.
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid].start <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 && t < sorted[lo - 1].end
    }
}
