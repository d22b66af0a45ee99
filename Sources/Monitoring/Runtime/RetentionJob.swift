import Core
import Store
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How long history is kept (from `[retention]`).
public struct RetentionSettings: Sendable {
    public var rawDays: Int64 = 7
    public var hourlyDays: Int64 = 100
    public var dailyDays: Int64 = 800
    /// Pings kept per heartbeat monitor.
    public var pingsKept = 100
    public init() {}
}

/// Rolls raw results up into hourly rows (and hourly into daily), then
/// deletes what has outlived its retention. Raw results are deleted only
/// once their hour is rolled up, so history is never lost between the two.
/// Runs at start-up and then every hour; each monitor's hour is its own
/// small write transaction, so check results never wait long behind it.
public final class RetentionJob: Sendable {
    static let hour: Int64 = 3600
    static let day: Int64 = 86_400
    static let eventBatch = 5_000

    private let database: Database
    private let settings: RetentionSettings
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<ThreadHandle?>(nil)
    /// Whether this hub does the pass (the leader, when hubs share a database).
    private let leads: @Sendable () -> Bool

    public init(database: Database, settings: RetentionSettings, leads: @escaping @Sendable () -> Bool = { true }) {
        self.database = database
        self.settings = settings
        self.leads = leads
    }

    public func start() {
        let handle = startThread(name: "retention") { [self] in
            while !stopping.load(ordering: .sequentiallyConsistent) {
                do {
                    if leads() { try run(now: Time.now()) }
                } catch {
                    Log.shared.error("retention job failed", ["error": "\(error)"])
                }
                for _ in 0..<3600 where !stopping.load(ordering: .sequentiallyConsistent) { sleep(1) }
            }
        }
        thread.withLock { $0 = handle }
    }

    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let handle = thread.withLock { h in let copy = h; h = nil; return copy }
        handle?.join()
    }

    /// One pass: roll up every complete hour older than an hour, then prune.
    public func run(now: Int64) throws {
        let target = (now - Self.hour) / Self.hour * Self.hour
        var horizon = try database.read { c -> Int64 in
            if let text = try Meta.get(c, "rollup_horizon"), let h = Int64(text) { return h }
            guard let oldest = try Monitors.oldestCreatedAt(c) else { return target }
            return min(oldest, target) / Self.hour * Self.hour
        }
        let ids = try database.read { try Monitors.ids($0) }
        while horizon < target && !stopping.load(ordering: .sequentiallyConsistent) {
            try rollUpHour(horizon, monitors: ids)
            horizon += Self.hour
            if horizon % Self.day == 0 { try rollUpDay(horizon - Self.day, monitors: ids) }
            let h = horizon
            try database.write { c in try Meta.set(c, "rollup_horizon", String(h)) }
        }
        try prune(now: now, horizon: horizon)
    }

    func rollUpHour(_ start: Int64, monitors: [Int64]) throws {
        for id in monitors {
            try database.write { c in
                let rows = try CheckResults.range(c, monitorID: id, fromMs: start * 1000, toMs: (start + Self.hour) * 1000)
                guard !rows.isEmpty else { return }
                var rollup = UptimeRollup(start: start)
                for r in rows {
                    rollup.record(SampleOutcome(rawValue: r.status) ?? .down, latencyMs: r.latencyMs.map(Int.init),
                                  inMaintenance: r.inMaintenance)
                }
                try CheckResults.upsertRollup(c, Self.record(rollup, monitorID: id, resolution: Self.hour))
            }
        }
    }

    func rollUpDay(_ start: Int64, monitors: [Int64]) throws {
        for id in monitors {
            try database.write { c in
                let hours = try CheckResults.rollups(c, monitorID: id, resolution: Self.hour, from: start, to: start + Self.day)
                guard !hours.isEmpty else { return }
                var day = UptimeRollup(start: start)
                for h in hours {
                    if let r = MonitoringService.rollup(h) { day.merge(r) }
                }
                try CheckResults.upsertRollup(c, Self.record(day, monitorID: id, resolution: Self.day))
            }
        }
    }

    func prune(now: Int64, horizon: Int64) throws {
        // Raw results go only once rolled up (never past the horizon).
        let rawCutoff = min(now - settings.rawDays * Self.day, horizon)
        var deleted = 0
        // One monitor per transaction: one huge DELETE would hold the writer
        // (and so every incoming result) for seconds on a large hub.
        for id in try database.read({ try Monitors.ids($0) }) where !stopping.load(ordering: .sequentiallyConsistent) {
            deleted += try database.write { c in try CheckResults.deleteBefore(c, monitorID: id, ms: rawCutoff * 1000) }
        }
        let hourly = try database.write { c in
            try CheckResults.deleteRollupsBefore(c, resolution: Self.hour, before: now - settings.hourlyDays * Self.day)
        }
        let daily = try database.write { c in
            try CheckResults.deleteRollupsBefore(c, resolution: Self.day, before: now - settings.dailyDays * Self.day)
        }
        let keep = settings.pingsKept
        try database.write { c in
            for id in try Heartbeats.monitorsWithPings(c) { try Heartbeats.prune(c, monitorID: id, keep: keep) }
        }
        // The events feed (SPEC §10) is kept as long as raw results, in
        // batches so the writer is never held for long.
        var events = 0
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let n = try database.write { c in try Events.deleteBefore(c, at: now - settings.rawDays * Self.day, limit: Self.eventBatch) }
            events += n
            if n < Self.eventBatch { break }
        }
        // Acknowledge links live 7 days at most; an expired one answers 404
        // like an unknown one, so its row can go (a day later: clocks differ).
        _ = try database.write { c in try AckLinks.deleteExpired(c, before: now - Self.day) }
        if deleted + hourly + daily + events > 0 {
            Log.shared.info("retention", ["raw_deleted": "\(deleted)", "hourly_deleted": "\(hourly)", "daily_deleted": "\(daily)",
                                          "events_deleted": "\(events)"])
        }
    }

    static func record(_ r: UptimeRollup, monitorID: Int64, resolution: Int64) -> RollupRecord {
        RollupRecord(monitorID: monitorID, resolution: resolution, bucketStart: r.start, up: Int64(r.upCount),
                     degraded: Int64(r.degradedCount), down: Int64(r.downCount), inMaintenance: Int64(r.maintenanceCount),
                     latencySum: Int64(r.latencySum), latencyCount: Int64(r.latencyCount), histogram: r.histogram.encoded)
    }
}
