import Core
import Monitoring
import Net
import Synchronization

/// Runs the assigned monitors here: the hub's own `Scheduler` (fixed grid
/// per monitor from its id, no drift, no overlap, at most `maxConcurrent`
/// in flight) and its `CheckExecutor` (the same checkers as the hub). Every
/// result goes into the upload buffer with the check's start time in
/// milliseconds.
final class AgentChecks: Sendable {
    let executor: CheckExecutor
    private let scheduler: Scheduler
    private let clock: any SchedulerClock
    private let buffer: ResultBuffer
    /// The assigned monitors, shared with the scheduler's dispatch.
    private let monitors: AssignedMonitors
    /// Called after a check-now result is buffered (the uploader sends it at once).
    private let urgentResult: @Sendable () -> Void

    init(settings: AgentSettings, location: String, clock: any SchedulerClock, buffer: ResultBuffer,
         urgentResult: @escaping @Sendable () -> Void) {
        let engine = ClientEngine(loops: 1, maxConcurrent: settings.maxConcurrent,
                                  extraCAFile: settings.extraCAFile, sourceAddress: settings.sourceAddress)
        executor = CheckExecutor(engine: engine, location: location, dnsThreads: 4)
        self.clock = clock
        self.buffer = buffer
        self.urgentResult = urgentResult
        // Built first, so the scheduler's dispatch needs nothing of `self`.
        let monitors = AssignedMonitors()
        self.monitors = monitors
        let executor = self.executor
        scheduler = Scheduler(maxConcurrent: settings.maxConcurrent, clock: clock) { run, scheduler in
            Self.dispatch(run, scheduler: scheduler, config: monitors.config(run.id), executor: executor, buffer: buffer)
        }
    }

    func start() { scheduler.start() }

    /// No new scheduled runs; checks in flight go on (their results are
    /// buffered and may still make the last upload).
    func stopScheduling() { scheduler.stop() }

    /// Cancels checks in flight and stops the checks' client and DNS workers.
    func shutdown() {
        scheduler.stop()
        executor.engine.shutdown()
        executor.shutdown()
    }

    /// Replaces the assignment: new monitors are scheduled, changed
    /// intervals move to their new grid, removed monitors stop. A changed
    /// configuration with the same interval applies from its next run.
    /// With `runNewAtOnce`, monitors new to this assignment are checked at
    /// once and then on their grid, as the hub does for a new monitor; the
    /// first assignment after start is not (no burst when an agent restarts).
    /// Returns (added, removed) counts.
    @discardableResult
    func apply(_ assignment: [Int64: MonitorConfig], runNewAtOnce: Bool) -> (added: Int, removed: Int) {
        let old = monitors.replace(assignment)
        for id in old.keys where assignment[id] == nil { scheduler.remove(id: id) }
        let added = assignment.keys.filter { old[$0] == nil }
        for (id, config) in assignment { scheduler.upsert(id: id, intervalMs: config.interval * 1000) }
        if runNewAtOnce {
            for id in added { scheduler.runNow(id: id) }
        }
        return (added.count, old.keys.filter { assignment[$0] == nil }.count)
    }

    func config(_ id: Int64) -> MonitorConfig? { monitors.config(id) }

    var monitorCount: Int { monitors.count }

    /// A check-now request: runs at once, beside the schedule (the hub waits
    /// at most 15 s for the answer). False for a monitor not assigned here.
    func checkNow(monitorID: Int64, requestID: String) -> Bool {
        guard let config = config(monitorID) else { return false }
        let startedAt = clock.nowMillis()
        let buffer = self.buffer, urgent = urgentResult
        executor.run(config) { check in
            buffer.append(UploadedResult(check: check, monitorID: monitorID, atMs: startedAt, requestID: requestID),
                          urgent: true)
            urgent()
        }
        return true
    }

    /// On the scheduler thread: hands the check to the client engine and
    /// returns at once; the completion (on an engine thread) frees the slot.
    private static func dispatch(_ run: ScheduledRun, scheduler: Scheduler, config: MonitorConfig?, executor: CheckExecutor,
                                 buffer: ResultBuffer) {
        guard let config else {
            scheduler.finished(id: run.id)
            return
        }
        let id = run.id, startedAt = run.startedAt
        executor.run(config) { check in
            let dropped = buffer.append(UploadedResult(check: check, monitorID: id, atMs: startedAt))
            if dropped > 0 { Log.shared.debug("result buffer full: dropped the oldest", ["dropped": "\(dropped)"]) }
            scheduler.finished(id: id)
        }
    }
}

/// The monitors assigned to this agent, by id.
final class AssignedMonitors: Sendable {
    private let map = Mutex<[Int64: MonitorConfig]>([:])

    func config(_ id: Int64) -> MonitorConfig? { map.withLock { $0[id] } }

    /// Replaces the whole assignment; returns the previous one.
    func replace(_ new: [Int64: MonitorConfig]) -> [Int64: MonitorConfig] {
        map.withLock { old in
            let previous = old
            old = new
            return previous
        }
    }

    var count: Int { map.withLock { $0.count } }
}
