import Core
import Crypto
import Net
import Store
import Synchronization

/// Settings of the monitoring runtime (from `[checks]` in the config).
public struct MonitoringSettings: Sendable {
    /// This hub's own location name.
    public var location = "hub"
    /// Checks in flight at once.
    public var maxConcurrent = 2048
    /// Base of heartbeat ping URLs (the public URL).
    public var publicURL = "http://127.0.0.1:8080"
    /// Extra CA certificates trusted by checks (PEM), besides the system's.
    public var extraCAFile: String?
    /// `[checks] source_address`: local address checks connect from.
    public var sourceAddress: IPAddress?
    public var retention = RetentionSettings()
    /// Seconds between an agent's contacts (`[agents] poll_interval`); an
    /// agent silent for three of them is offline.
    public var agentPollInterval: Int64 = 10
    public init() {}
}

/// The monitoring runtime: keeps every monitor scheduled, runs checks,
/// records results through the batch writer, watches heartbeats, and offers
/// the operations the API needs. All writes go through here so the
/// in-memory registry, the scheduler and the database agree.
public final class MonitoringService: Sendable {
    public let database: Database
    public let settings: MonitoringSettings
    public let writer: BatchWriter
    public let calendar: MaintenanceCalendar
    let recorder: ResultRecorder
    let registry = MonitorRegistry()
    let executor: CheckExecutor
    let scheduler: Scheduler
    let heartbeats: HeartbeatWatcher
    let retention: RetentionJob
    /// Ends dependency holds that ran out (SPEC §12).
    public let dependencies: DependencyJob
    /// Heartbeat pings, written in groups through `writer`.
    let pingIngest: PingIngest
    let checksRun = Counter()
    /// Remote agents: their endpoints, liveness and check-now requests.
    public let agents: AgentService
    /// The hubs sharing the database: which monitors this one checks, and
    /// whether it runs the once-for-all jobs (alone on SQLite).
    public let cluster: HubCluster
    /// Tells the other hubs sharing the database what changed here (inert
    /// alone); `wake(_:)` handles what they tell this one.
    public let wake: WakeChannel
    /// What this hub knows of the monitors' versions and owns (shared mode).
    let clusterState = Mutex(ClusterState())
    /// Status pages' closed days (`dailyUptime`).
    let closedDaysCache = ClosedDaysCache()
    /// `tagCounts()` as of a registry version.
    let tagCountsKept = Mutex<(version: Int, counts: [(tag: String, monitors: Int)])?>(nil)

    /// `agentClock` (Unix milliseconds) drives agent liveness; tests inject one.
    /// `calendar`: the maintenance calendar, when the wiring built it first
    /// (alerting asks it whether a monitor is quiet); else one of its own.
    public init(database: Database, settings: MonitoringSettings, calendar: MaintenanceCalendar? = nil,
                eventSink: (any EventSink)? = nil, agentClock: @escaping @Sendable () -> Int64 = { Time.nowMillis() },
                cluster: HubCluster = .standalone(), wake: WakeChannel = .inert) {
        self.database = database
        self.cluster = cluster
        self.wake = wake
        self.settings = settings
        writer = BatchWriter(database: database)
        self.calendar = calendar ?? MaintenanceCalendar(database: database)
        recorder = ResultRecorder(hubLocation: settings.location, calendar: self.calendar, sink: eventSink, roster: AgentRoster())
        dependencies = DependencyJob(database: database, recorder: recorder)
        agents = AgentService(database: database, writer: writer, recorder: recorder, registry: registry,
                              pollInterval: settings.agentPollInterval, clock: agentClock, leads: { cluster.isLeader },
                              nodeID: cluster.isShared ? cluster.nodeID : nil, wake: wake)
        executor = CheckExecutor(engine: ClientEngine(loops: 1, maxConcurrent: settings.maxConcurrent,
                                                      extraCAFile: settings.extraCAFile,
                                                      sourceAddress: settings.sourceAddress),
                                 location: settings.location)
        retention = RetentionJob(database: database, settings: settings.retention, leads: { cluster.isLeader })
        // PostgreSQL: pings get their own writer lanes, so one group runs
        // while the previous one's COMMIT waits for the WAL flush. SQLite:
        // the one writer (a second would only wait for the file lock).
        let pingWriters = database.writeLanes > 0
            ? (0..<database.writeLanes).map { BatchWriter(database: database, lane: $0) } : [writer]
        pingIngest = PingIngest(lanes: pingWriters, recorder: recorder, calendar: self.calendar, location: settings.location)
        // The scheduler and the heartbeat watcher call functions of the
        // pieces built above, never the service itself, so nothing has to be
        // completed once `self` exists.
        let (registry, executor, writer, recorder, checksRun) = (registry, executor, writer, self.recorder, checksRun)
        // Scheduled checks' results are written in groups (`applyMany`).
        let results = WriteGroup<ResultRecorder.Recorded> { c, group in try recorder.applyMany(group, on: c) }
        scheduler = Scheduler(maxConcurrent: settings.maxConcurrent) { run, scheduler in
            Self.dispatch(run, scheduler: scheduler, registry: registry, executor: executor, writer: writer, results: results,
                          checksRun: checksRun)
        }
        let (database, location) = (database, settings.location)
        heartbeats = HeartbeatWatcher { id, now in
            Self.judgeHeartbeat(id, now: now, database: database, registry: registry, location: location, writer: writer,
                                recorder: recorder)
        }
    }

    /// Loads every monitor and starts checking.
    public func start() throws {
        try calendar.reload()
        let (cursor, records) = try database.read { c in (try Self.freshCursor(c), try Monitors.all(c)) }
        clusterState.withLock { s in
            s.changes = cursor
            s.changesReadAt = Time.nowMillis()
        }
        for record in records { try load(record) }
        try agents.start()
        scheduler.start()
        heartbeats.start()
        retention.start()
        dependencies.start()
        Log.shared.info("monitoring started", ["monitors": "\(records.count)", "location": settings.location])
    }

    /// Stops checking, saves each monitor's next due time (so a restart
    /// resumes on the same grid without a burst), and flushes writes.
    public func stop() {
        scheduler.stop()
        heartbeats.stop()
        retention.stop()
        dependencies.stop()
        agents.stop()
        let dues = registry.all().compactMap { id, _ in scheduler.nextDue(id: id).map { (id, $0) } }
        do {
            try database.write { c in
                for (id, due) in dues { try Monitors.setNextDue(c, id: id, ms: due) }
            }
        } catch {
            Log.shared.warn("could not save next due times", ["error": "\(error)"])
        }
        pingIngest.stop()
        writer.stop()
        executor.engine.shutdown()
        executor.shutdown()
    }

    // MARK: scheduling

    /// Whether this hub runs the monitor's checks: it is one of the
    /// monitor's locations (remote-only monitors run at their agents), and,
    /// when hubs share a database, this hub owns the monitor.
    func checkedHere(_ id: Int64, _ config: MonitorConfig) -> Bool {
        atHubLocation(config) && cluster.owns(id)
    }

    /// The monitor is checked from the hub's location (by whichever hub owns it).
    func atHubLocation(_ config: MonitorConfig) -> Bool {
        config.type == .heartbeat || config.locations.isEmpty || config.locations.contains(settings.location)
    }

    /// A stored monitor into the registry and, if this hub checks it, the
    /// schedule (at start, and when another hub changed or created it).
    @discardableResult
    func load(_ record: MonitorRecord) throws -> MonitorConfig {
        let config = try MonitorConfig(record: record)
        registry.set(record.id, .init(config: config, createdAt: record.createdAt, pingKey: record.pingKey))
        activate(record.id, config, storedNextDue: record.nextDueMs)
        return config
    }

    func activate(_ id: Int64, _ config: MonitorConfig, storedNextDue: Int64? = nil) {
        if config.paused || !checkedHere(id, config) {
            scheduler.remove(id: id)
            heartbeats.remove(id)
        } else if config.type == .heartbeat {
            scheduler.remove(id: id)
            heartbeats.setDeadline(id, Time.now())
        } else {
            scheduler.upsert(id: id, intervalMs: config.interval * 1000, storedNextDue: storedNextDue)
        }
    }

    static func dispatch(_ run: ScheduledRun, scheduler: Scheduler, registry: MonitorRegistry, executor: CheckExecutor,
                         writer: BatchWriter, results: WriteGroup<ResultRecorder.Recorded>, checksRun: Counter) {
        guard let entry = registry.get(run.id) else {
            scheduler.finished(id: run.id)
            return
        }
        checksRun.add(1)
        let config = entry.config
        // On the scheduler thread: while the writer is far behind, no new
        // check starts (the ones due meanwhile run late, not never).
        writer.waitForRoom()
        executor.run(config) { result in
            writer.submit(ResultRecorder.Recorded(monitorID: run.id, result: result, config: config), to: results)
            scheduler.finished(id: run.id)
        }
    }

    // MARK: heartbeats

    /// Evaluates a heartbeat now; records a down verdict the first time it
    /// is late. Returns the next deadline.
    func judgeHeartbeat(_ id: Int64, now: Int64) -> Int64? {
        Self.judgeHeartbeat(id, now: now, database: database, registry: registry, location: settings.location, writer: writer,
                            recorder: recorder)
    }

    static func judgeHeartbeat(_ id: Int64, now: Int64, database: Database, registry: MonitorRegistry, location: String,
                               writer: BatchWriter, recorder: ResultRecorder) -> Int64? {
        guard let entry = registry.get(id), case .heartbeat = entry.config.type, !entry.config.paused,
              let settings = entry.config.heartbeat else { return nil }
        do {
            let state = try database.read { try Heartbeats.state($0, monitorID: id) }
            let verdict = HeartbeatEvaluator.evaluate(
                schedule: HeartbeatSchedules.schedule(settings), createdAt: entry.createdAt,
                lastSuccess: state.lastSuccess, lastStart: state.lastStart,
                lastFailure: state.lastFailure.map { ($0, state.lastExitCode.map(Int.init)) }, now: now)
            if verdict.outcome == .down {
                let result = CheckResult(at: now, location: location, outcome: .down, error: verdict.cause)
                let config = entry.config
                try writer.perform { c in try recorder.apply(.result(result), monitorID: id, on: c, config: config, returning: false) }
            }
            return verdict.nextDeadline
        } catch {
            Log.shared.error("heartbeat evaluation failed", ["monitor_id": "\(id)", "error": "\(error)"])
            return now + 30
        }
    }

    /// Milliseconds as Prometheus seconds text ("0.001", "2.5", "60").
    static func seconds(_ ms: Int64) -> String {
        let whole = "\(ms / 1000)"
        let fraction = ms % 1000
        guard fraction != 0 else { return whole }
        var digits = String(1000 + fraction).dropFirst()   // three digits
        while digits.last == "0" { digits = digits.dropLast() }
        return whole + "." + digits
    }

    /// Metrics for `/metrics`; `perMonitor` adds the per-monitor families.
    public func metrics(into out: inout PrometheusText, perMonitor: Bool = true) {
        let m = scheduler.metrics()
        let (writes, batches) = writer.stats
        out.family("pingtxt_checks_total", .counter, help: "Checks started by the scheduler.")
        out.sample("pingtxt_checks_total", checksRun.current)
        out.family("pingtxt_check_lateness_ms", .summary, help: "Delay between a check's due time and its start.")
        out.sample("pingtxt_check_lateness_ms", ["quantile": "0.5"], m.latenessP50)
        out.sample("pingtxt_check_lateness_ms", ["quantile": "0.99"], m.latenessP99)
        out.sample("pingtxt_check_lateness_ms_count", m.latenessCount)
        // The same samples with fixed bounds: a window's lateness is the
        // difference of two scrapes (the quantiles above count since start).
        out.family("pingtxt_check_lateness_seconds", .histogram, help: "Delay between a check's due time and its start.")
        var below = 0
        for (i, bound) in SchedulerMetrics.latenessBoundsMs.enumerated() {
            below += m.latenessBuckets.indices.contains(i) ? m.latenessBuckets[i] : 0
            out.sample("pingtxt_check_lateness_seconds_bucket", ["le": Self.seconds(bound)], below)
        }
        out.sample("pingtxt_check_lateness_seconds_bucket", ["le": "+Inf"], m.latenessCount)
        out.sample("pingtxt_check_lateness_seconds_sum", Double(m.latenessSum) / 1000)
        out.sample("pingtxt_check_lateness_seconds_count", m.latenessCount)
        out.family("pingtxt_checks_in_flight", .gauge, help: "Checks running now.")
        out.sample("pingtxt_checks_in_flight", m.inFlight)
        out.family("pingtxt_db_batched_writes_total", .counter, help: "Writes committed by the batch writer.")
        out.sample("pingtxt_db_batched_writes_total", writes)
        out.family("pingtxt_db_batches_total", .counter, help: "Transactions the batch writer committed.")
        out.sample("pingtxt_db_batches_total", batches)
        if let wal = database.walStatus {
            out.family("pingtxt_db_wal_pages", .gauge,
                       help: "Pages (4 KB) in the SQLite WAL when the background checkpoint last ran.")
            out.sample("pingtxt_db_wal_pages", wal.pages)
            out.family("pingtxt_db_wal_writer_checkpoints_total", .counter,
                       help: "Checkpoints the writer ran so that a WAL past 64 MB starts over.")
            out.sample("pingtxt_db_wal_writer_checkpoints_total", wal.writerCheckpoints)
        }
        out.family("pingtxt_agents", .gauge, help: "Remote agents by status.")
        let agentCounts = agents.roster.counts()
        for status in [AgentRoster.Status.pending, .online, .offline] {
            out.sample("pingtxt_agents", ["status": status.rawValue], agentCounts[status] ?? 0)
        }
        out.family("pingtxt_incidents_open", .gauge, help: "Open incidents by kind.")
        if let open = try? database.read({ try Incidents.openByKind($0) }) {
            for kind in Set(["down", "degraded", "expiry"]).union(open.keys).sorted() {
                out.sample("pingtxt_incidents_open", ["kind": kind], open[kind] ?? 0)
            }
        }
        guard perMonitor else { return }
        do {
            let rows = try database.read { try Monitors.metricRows($0) }
            MonitorSeries(hubLocation: settings.location).render(rows, into: &out)
        } catch {
            Log.shared.error("metrics: reading monitors failed", ["error": "\(error)"])
        }
    }
}
