import Core
import Synchronization

/// Runs checks on time. One thread keeps a `DueQueue` of monitors; when one
/// is due and fewer than `maxConcurrent` runs are in flight, it calls
/// `dispatch` with a `ScheduledRun` and itself, and the run's owner calls
/// `finished(id:)` on it when the check is done. (Handing itself over lets
/// the dispatcher be built before the scheduler, from the pieces it needs,
/// instead of completing the owner after construction.)
///
/// - Timing (see `SchedulePlan`): each monitor sits on a fixed grid
///   (phase from its id + k × interval). When a run is dispatched, the next
///   slot (`SchedulePlan.nextDue`: previous slot + interval) is queued at
///   once, so how long a check takes never shifts the schedule.
/// - No overlap: an item is never dispatched while its previous run has not
///   finished; that slot is skipped and counted (`skippedOverlaps`).
/// - Falling behind (all slots busy, or the process was stopped): a run
///   starts as soon as it can, the slots that passed meanwhile are skipped
///   and counted (`skippedLate`) — no pile-up of catch-up runs.
/// - The thread sleeps until the earliest due time, or until woken by
///   `upsert`, `runNow`, `finished` or `stop`; there is no polling.
/// - Due times are wall-clock (Unix) milliseconds, since they are stored.
///   If the wall clock steps forward, due runs start once (the skipped slots
///   count as `skippedLate`); if it steps back, slots now more than one
///   interval away are moved to the next grid slot.
///
/// `dispatch` is called on the scheduler thread without any lock held. It
/// must hand the run off quickly (enqueue it for a worker pool, write an
/// eventfd…) and must not block on the check itself, or every other monitor
/// waits. It may call `finished`, `upsert`, `remove` and `runNow`, but not
/// `stop` (which joins the scheduler thread).
public final class Scheduler: Sendable {
    struct Item {
        var intervalMs: Int64
        /// The next regular slot (also its key in the queue unless `frontKey` is set).
        var slot: Int64
        /// Queue key while a `runNow` is waiting at the front.
        var frontKey: Int64?
        /// When `runNow` was called (the manual run's `due`).
        var requestedAt: Int64 = 0
        /// `runNow` arrived while a run was in flight: run again when it finishes.
        var runAfterFinish = false
    }

    struct State {
        var queue = DueQueue()
        var items: [Int64: Item] = [:]
        var running: Set<Int64> = []
        var frontSequence: Int64 = 0
        /// The clock reading of the previous step, to notice the wall clock stepping back.
        var lastNow: Int64?
        var stopping = false
        var thread: ThreadHandle?
        var runsStarted = 0
        var skippedOverlaps = 0
        var skippedLate = 0
        var lateness = LatenessHistogram()
    }

    public let maxConcurrent: Int
    private let clock: any SchedulerClock
    private let dispatch: @Sendable (ScheduledRun, Scheduler) -> Void
    private let state = Mutex(State())

    public init(maxConcurrent: Int, clock: any SchedulerClock = SystemSchedulerClock(),
                dispatch: @escaping @Sendable (ScheduledRun, Scheduler) -> Void) {
        precondition(maxConcurrent >= 1, "maxConcurrent must be at least 1")
        self.maxConcurrent = maxConcurrent
        self.clock = clock
        self.dispatch = dispatch
    }

    // MARK: Managing items

    /// Adds a monitor, or changes its interval. A new item's first run is
    /// `SchedulePlan.firstDue` (a stored next-due in the future is kept,
    /// otherwise the next grid slot: no burst after a restart). For a known
    /// item, the same interval changes nothing (`storedNextDue` is ignored:
    /// the scheduler's own schedule wins); a new interval moves it to the
    /// new grid (`firstDue` again). Safe to call while it runs.
    public func upsert(id: Int64, intervalMs: Int64, storedNextDue: Int64? = nil) {
        precondition(intervalMs > 0, "interval must be positive")
        let now = clock.nowMillis()
        let changed = state.withLock { s -> Bool in
            if var item = s.items[id] {
                guard item.intervalMs != intervalMs else { return false }
                item.intervalMs = intervalMs
                item.slot = SchedulePlan.firstDue(id: id, intervalMs: intervalMs, now: now,
                                                  storedNextDue: storedNextDue)
                if item.frontKey == nil { s.queue.set(id: id, due: item.slot) }
                s.items[id] = item
            } else {
                let slot = SchedulePlan.firstDue(id: id, intervalMs: intervalMs, now: now,
                                                 storedNextDue: storedNextDue)
                s.items[id] = Item(intervalMs: intervalMs, slot: slot)
                s.queue.set(id: id, due: slot)
            }
            return true
        }
        if changed { clock.wake() }
    }

    /// Stops scheduling `id` (paused or deleted monitor). A run already in
    /// flight is not interrupted; its `finished` still frees its slot.
    public func remove(id: Int64) {
        state.withLock { s in
            s.items[id] = nil
            s.queue.remove(id: id)
        }
    }

    /// Runs `id` as soon as a slot is free, ahead of everything else due.
    /// Its regular schedule continues unchanged (if a regular slot is due
    /// when the manual run starts, the manual run counts for it). If a run
    /// of `id` is in flight, it runs again right after that one finishes.
    /// Returns false for an unknown id.
    @discardableResult
    public func runNow(id: Int64) -> Bool {
        let now = clock.nowMillis()
        let known = state.withLock { s -> Bool in
            guard var item = s.items[id] else { return false }
            if s.running.contains(id) {
                item.runAfterFinish = true
                item.requestedAt = now
            } else if item.frontKey == nil {
                Self.moveToFront(&item, id: id, requestedAt: now, in: &s)
            }
            s.items[id] = item
            return true
        }
        if known { clock.wake() }
        return known
    }

    /// The run of `id` is over: frees its concurrency slot and wakes the
    /// scheduler. Unknown or not-running ids are ignored.
    ///
    /// It wakes the scheduler thread only when that thread may be waiting
    /// for this: all slots were taken (it sleeps without a deadline then),
    /// or a manual run now waits at the front. Otherwise the thread already
    /// sleeps until the next due time, and waking it for every finished
    /// check (thousands a second at scale) would cost a futex wake and two
    /// context switches each for nothing.
    public func finished(id: Int64) {
        let wake = state.withLock { s -> Bool in
            let wasFull = s.running.count >= maxConcurrent
            guard s.running.remove(id) != nil else { return false }
            if var item = s.items[id], item.runAfterFinish {
                item.runAfterFinish = false
                Self.moveToFront(&item, id: id, requestedAt: item.requestedAt, in: &s)
                s.items[id] = item
                return true
            }
            return wasFull
        }
        if wake { clock.wake() }
    }

    private static func moveToFront(_ item: inout Item, id: Int64, requestedAt: Int64, in s: inout State) {
        s.frontSequence += 1
        let key = Int64.min + s.frontSequence  // before any real time, FIFO among manual runs
        item.frontKey = key
        item.requestedAt = requestedAt
        s.queue.set(id: id, due: key)
    }

    /// The queued next-due time of `id` (regular slot), for persisting.
    public func nextDue(id: Int64) -> Int64? { state.withLock { $0.items[id]?.slot } }

    // MARK: Metrics

    public func latenessPercentiles() -> (p50: Int64, p99: Int64, count: Int) {
        state.withLock { ($0.lateness.percentile(perMille: 500), $0.lateness.percentile(perMille: 990), $0.lateness.count) }
    }

    public func metrics() -> SchedulerMetrics {
        state.withLock { s in
            SchedulerMetrics(scheduled: s.items.count, inFlight: s.running.count, runsStarted: s.runsStarted,
                             skippedOverlaps: s.skippedOverlaps, skippedLate: s.skippedLate,
                             latenessP50: s.lateness.percentile(perMille: 500),
                             latenessP99: s.lateness.percentile(perMille: 990),
                             latenessCount: s.lateness.count, latenessSum: s.lateness.sum,
                             latenessBuckets: s.lateness.fixed)
        }
    }

    // MARK: Running

    /// Starts the scheduler thread (once; no effect after `stop`).
    public func start() {
        state.withLock { s in
            guard s.thread == nil, !s.stopping else { return }
            s.thread = startThread(name: "scheduler") { [self] in self.loop() }
        }
    }

    /// Stops the thread and waits for it to end. Runs in flight are not
    /// waited for. Idempotent. Must not be called from `dispatch`.
    public func stop() {
        let thread = state.withLock { s -> ThreadHandle? in
            s.stopping = true
            defer { s.thread = nil }
            return s.thread
        }
        clock.wake()
        thread?.join()
    }

    private func loop() {
        while true {
            let (deadline, stopped) = step()
            if stopped { return }
            clock.sleep(until: deadline)
        }
    }

    /// Dispatches everything due now (as far as `maxConcurrent` allows) and
    /// returns when to look again: the earliest due time, or nil when the
    /// queue is empty or blocked on a free slot (`finished` wakes it). The
    /// scheduler thread calls this in its loop; tests may call it directly
    /// with a `ManualSchedulerClock` instead of `start()`.
    @discardableResult
    public func runDue() -> Int64? { step().deadline }

    private func step() -> (deadline: Int64?, stopped: Bool) {
        let now = clock.nowMillis()
        let limit = maxConcurrent
        let (runs, deadline, stopped) = state.withLock { s -> ([ScheduledRun], Int64?, Bool) in
            guard !s.stopping else { return ([], nil, true) }
            if let last = s.lastNow, now < last - 1000 {
                // The wall clock was stepped back: slots more than one interval
                // ahead would leave monitors unchecked for that long. Re-place them.
                for (id, var item) in s.items {
                    let rebased = SchedulePlan.firstDue(id: id, intervalMs: item.intervalMs, now: now,
                                                        storedNextDue: item.slot)
                    guard rebased != item.slot else { continue }
                    item.slot = rebased
                    s.items[id] = item
                    if item.frontKey == nil { s.queue.set(id: id, due: rebased) }
                }
            }
            s.lastNow = now
            var runs: [ScheduledRun] = []
            while let head = s.queue.first, head.due <= now {
                let id = head.id
                guard var item = s.items[id] else {
                    s.queue.remove(id: id)
                    continue
                }
                let manual = item.frontKey == head.due
                if s.running.contains(id) {
                    if manual {
                        // Not reachable through the public API; keep the request for later.
                        item.frontKey = nil
                        item.runAfterFinish = true
                    } else {
                        // Still running from an earlier slot: skip this one (and any passed).
                        let next = SchedulePlan.nextDue(previousDue: item.slot, intervalMs: item.intervalMs,
                                                        now: now + 1)
                        s.skippedOverlaps += 1 + Int(SchedulePlan.skippedSlots(
                            previousDue: item.slot, intervalMs: item.intervalMs, next: next))
                        item.slot = next
                    }
                    s.queue.set(id: id, due: item.slot)
                    s.items[id] = item
                    continue
                }
                guard s.running.count < limit else { break }
                let due = manual ? item.requestedAt : item.slot
                runs.append(ScheduledRun(id: id, due: due, startedAt: now, manual: manual))
                s.lateness.record(now - due)
                s.runsStarted += 1
                s.running.insert(id)
                if manual {
                    item.frontKey = nil
                    if item.slot <= now {  // a regular slot is due too: this run serves it
                        item.slot = SchedulePlan.nextDue(previousDue: item.slot, intervalMs: item.intervalMs,
                                                         now: now + 1)
                    }
                } else {
                    // The next slot strictly after now: this run covers every slot up to now.
                    let next = SchedulePlan.nextDue(previousDue: item.slot, intervalMs: item.intervalMs, now: now + 1)
                    s.skippedLate += Int(SchedulePlan.skippedSlots(previousDue: item.slot,
                                                                   intervalMs: item.intervalMs, next: next))
                    item.slot = next
                }
                s.queue.set(id: id, due: item.slot)
                s.items[id] = item
            }
            var deadline = s.queue.first?.due
            if let d = deadline, d <= now { deadline = nil }  // blocked on capacity: `finished` wakes us
            return (runs, deadline, false)
        }
        for run in runs { dispatch(run, self) }
        return (deadline, stopped)
    }
}
