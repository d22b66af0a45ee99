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
    /// Once an hour is rolled up, its raw `up` results are thinned to one per
    /// this many minutes per location (non-up results and status changes
    /// always stay; see `RawThinning`). 0 keeps every result.
    public var rawSampleMinutes: Int64 = 10
    /// Pings kept per heartbeat monitor.
    public var pingsKept = 100
    public init() {}
}

/// Rolls raw results up into hourly rows (and hourly into daily), thins the
/// raw results of rolled-up hours, then deletes what has outlived its
/// retention (docs/storage.md). Raw results are thinned or deleted only once
/// their hour is rolled up — from every result of the hour — so roll-ups,
/// uptime, SLA and daily bars never see the thinning. Runs at start-up and
/// then every hour. Its writes are bounded transactions of ~20 ms, several
/// monitors each (`RetentionBatches`), so check results never wait long.
public final class RetentionJob: Sendable {
    static let hour: Int64 = 3600
    static let day: Int64 = 86_400
    static let eventBatch = 5_000

    private let database: Database
    private let settings: RetentionSettings
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<ThreadHandle?>(nil)
    private let batches: RetentionBatches
    private let last = Mutex<RetentionPassStats?>(nil)
    /// Whether this hub does the pass (the leader, when hubs share a database).
    private let leads: @Sendable () -> Bool

    public init(database: Database, settings: RetentionSettings, leads: @escaping @Sendable () -> Bool = { true }) {
        self.database = database
        self.settings = settings
        self.leads = leads
        batches = RetentionBatches(database: database)
    }

    /// What the last finished pass did (nil before the first).
    public var lastPass: RetentionPassStats? { last.withLock { $0 } }

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

    private func stopped() -> Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// One pass: roll up every complete hour older than an hour, thin the
    /// raw results of rolled-up hours, then prune.
    public func run(now: Int64) throws {
        let started = Time.monotonicNanos()
        batches.begin()
        let target = (now - Self.hour) / Self.hour * Self.hour
        var horizon = try database.read { c -> Int64 in
            if let text = try Meta.get(c, "rollup_horizon"), let h = Int64(text) { return h }
            guard let oldest = try Monitors.oldestCreatedAt(c) else { return target }
            return min(oldest, target) / Self.hour * Self.hour
        }
        let ids = try database.read { try Monitors.ids($0) }
        while horizon < target && !stopped() {
            guard try rollUpHour(horizon, monitors: ids) else { break }
            horizon += Self.hour
            if horizon % Self.day == 0 { guard try rollUpDay(horizon - Self.day, monitors: ids) else { break } }
            let h = horizon
            try batches.write { c in try Meta.set(c, "rollup_horizon", String(h)) }
        }
        try thin(until: horizon, now: now, monitors: ids)
        try prune(now: now, horizon: horizon, monitors: ids)
        // The status deltas of the hour, even if nobody opened the dashboard.
        _ = try batches.write { c in try MonitorStatusTally.fold(c) }
        batches.update { $0.durationMs = Double(Time.monotonicNanos() - started) / 1_000_000 }
        let s = batches.current
        last.withLock { $0 = s }
        if s.rawDeleted + s.rawThinned + s.hourlyDeleted + s.dailyDeleted + s.eventsDeleted + s.hoursRolledUp > 0 {
            Log.shared.info("retention", ["raw_deleted": "\(s.rawDeleted)", "raw_thinned": "\(s.rawThinned)",
                                          "hourly_deleted": "\(s.hourlyDeleted)", "daily_deleted": "\(s.dailyDeleted)",
                                          "events_deleted": "\(s.eventsDeleted)", "transactions": "\(s.transactions)",
                                          "max_transaction_ms": "\(Int(s.maxTransactionMs.rounded(.up)))",
                                          "duration_ms": "\(Int(s.durationMs))"])
        }
    }

    /// Returns false when stopped before every monitor was done.
    func rollUpHour(_ start: Int64, monitors: [Int64]) throws -> Bool {
        var hours = 0
        defer { batches.update { $0.hoursRolledUp += hours } }
        return try batches.each(monitors, stop: stopped) { c, id in
            let rows = try CheckResults.range(c, monitorID: id, fromMs: start * 1000, toMs: (start + Self.hour) * 1000)
            guard !rows.isEmpty else { return }
            var rollup = UptimeRollup(start: start)
            for r in rows {
                rollup.record(SampleOutcome(rawValue: r.status) ?? .down, latencyMs: r.latencyMs.map(Int.init),
                              inMaintenance: r.inMaintenance)
            }
            try CheckResults.upsertRollup(c, Self.record(rollup, monitorID: id, resolution: Self.hour))
            hours += 1
        }
    }

    func rollUpDay(_ start: Int64, monitors: [Int64]) throws -> Bool {
        try batches.each(monitors, stop: stopped) { c, id in
            let hours = try CheckResults.rollups(c, monitorID: id, resolution: Self.hour, from: start, to: start + Self.day)
            guard !hours.isEmpty else { return }
            var day = UptimeRollup(start: start)
            for h in hours {
                if let r = MonitoringService.rollup(h) { day.merge(r) }
            }
            try CheckResults.upsertRollup(c, Self.record(day, monitorID: id, resolution: Self.day))
        }
    }

    /// Thins the hours between `thin_horizon` and the roll-up horizon, an
    /// hour at a time for every monitor, after the roll-up horizon has moved
    /// past them (so readers take those hours from the roll-ups by then).
    /// Hours about to be deleted (past `raw_days`) are not worth thinning.
    func thin(until horizon: Int64, now: Int64, monitors: [Int64]) throws {
        let minutes = settings.rawSampleMinutes
        guard minutes > 0 else { return }
        let oldest = min(now - settings.rawDays * Self.day, horizon) / Self.hour * Self.hour
        var hour = try database.read { c -> Int64 in
            Int64(try Meta.get(c, "thin_horizon") ?? "") ?? oldest
        }
        hour = max(hour, oldest)
        while hour < horizon && !stopped() {
            let start = hour
            var thinned = 0, hours = 0
            let done = try batches.each(monitors, stop: stopped) { c, id in
                let rows = try CheckResults.statuses(c, monitorID: id, fromMs: start * 1000, toMs: (start + Self.hour) * 1000)
                let gone = RawThinning.deletable(rows, hourStart: start, sampleMinutes: minutes)
                if !gone.isEmpty { thinned += try CheckResults.delete(c, ids: gone) }
                if !rows.isEmpty { hours += 1 }
            }
            batches.update { $0.rawThinned += thinned; $0.hoursThinned += hours }
            guard done else { break }
            hour += Self.hour
            let h = hour
            try batches.write { c in try Meta.set(c, "thin_horizon", String(h)) }
        }
    }

    /// `monitors`: the pass's list (read once at its start; a monitor
    /// created since has nothing old enough to prune).
    func prune(now: Int64, horizon: Int64, monitors: [Int64]) throws {
        // Raw results go only once rolled up (never past the horizon).
        let rawCutoff = min(now - settings.rawDays * Self.day, horizon)
        let hourlyCutoff = now - settings.hourlyDays * Self.day
        let dailyCutoff = now - settings.dailyDays * Self.day
        var raw = 0, hourly = 0, daily = 0
        // Per monitor, so each delete is a range of an index that starts with
        // monitor_id; a few hundred monitors per bounded transaction.
        try batches.each(monitors, stop: stopped) { c, id in
            raw += try CheckResults.deleteBefore(c, monitorID: id, ms: rawCutoff * 1000)
            hourly += try CheckResults.deleteRollupsBefore(c, monitorID: id, resolution: Self.hour, before: hourlyCutoff)
            daily += try CheckResults.deleteRollupsBefore(c, monitorID: id, resolution: Self.day, before: dailyCutoff)
        }
        let keep = settings.pingsKept
        try batches.each(try database.read { try Heartbeats.monitorsWithPings($0) }, stop: stopped) { c, id in
            try Heartbeats.prune(c, monitorID: id, keep: keep)
        }
        // The events feed (SPEC §10) is kept as long as raw results, in
        // batches so the writer is never held for long.
        var events = 0
        while !stopped() {
            let n = try batches.write { c in try Events.deleteBefore(c, at: now - settings.rawDays * Self.day, limit: Self.eventBatch) }
            events += n
            if n < Self.eventBatch { break }
        }
        // Acknowledge links live 7 days at most; an expired one answers 404
        // like an unknown one, so its row can go (a day later: clocks differ).
        _ = try batches.write { c in try AckLinks.deleteExpired(c, before: now - Self.day) }
        batches.update { s in
            s.rawDeleted += raw
            s.hourlyDeleted += hourly
            s.dailyDeleted += daily
            s.eventsDeleted += events
        }
    }

    static func record(_ r: UptimeRollup, monitorID: Int64, resolution: Int64) -> RollupRecord {
        RollupRecord(monitorID: monitorID, resolution: resolution, bucketStart: r.start, up: Int64(r.upCount),
                     degraded: Int64(r.degradedCount), down: Int64(r.downCount), inMaintenance: Int64(r.maintenanceCount),
                     latencySum: Int64(r.latencySum), latencyCount: Int64(r.latencyCount), histogram: r.histogram.encoded)
    }
}
