import Core
import Synchronization
#if canImport(Glibc)
import func Glibc.usleep
#endif

/// Group commit: many small writes (check results, heartbeat pings) share
/// one transaction. Callers hand in closures; one thread runs everything
/// queued so far in a single `BEGIN IMMEDIATE … COMMIT`. If any write fails,
/// the batch is redone with each write in its own SAVEPOINT, so a failing
/// write rolls back alone. While a commit
/// runs, new work queues up and forms the next batch, so batches grow with
/// load without any artificial delay.
///
/// `perform` returns only after the commit: what it wrote survives a crash.
public final class BatchWriter: Sendable {
    private final class Item: Sendable {
        /// What the item writes: a body of its own, or a value of a
        /// `WriteGroup`, run together with its neighbours.
        enum Work: Sendable {
            case run(@Sendable (Connection) throws -> Void)
            case grouped(any Sendable, any GroupRunner)
        }

        // `work` is set once at creation; `error` is written by the writer
        // thread before `done.post()` and read by the waiter after
        // `done.wait()` (the semaphore orders them; the mutex makes that
        // checkable).
        let work: Work
        private let failure = Mutex<(any Error)?>(nil)
        var error: (any Error)? {
            get { failure.withLock { $0 } }
            set { failure.withLock { $0 = newValue } }
        }
        let done: Semaphore?
        let completion: (@Sendable ((any Error)?) -> Void)?
        init(run: @escaping @Sendable (Connection) throws -> Void, waits: Bool,
             completion: (@Sendable ((any Error)?) -> Void)? = nil) {
            work = .run(run)
            done = waits ? Semaphore() : nil
            self.completion = completion
        }
        init(value: any Sendable, group: any GroupRunner) {
            work = .grouped(value, group)
            (done, completion) = (nil, nil)
        }
        /// Someone is waiting for this write: the batch commits without gathering.
        var awaited: Bool { done != nil || completion != nil }
        /// This write by itself (the savepoint redo of a failed batch).
        func runAlone(_ c: Connection) throws {
            switch work {
            case .run(let run): try run(c)
            case .grouped(let value, let group): try group.runAll(c, [value])
            }
        }

        /// The group of a grouped item.
        var group: (any GroupRunner)? {
            if case .grouped(_, let group) = work { group } else { nil }
        }
    }

    /// What the writer sees of a `WriteGroup`: its body, with the values
    /// still type-erased.
    protocol GroupRunner: AnyObject, Sendable {
        func runAll(_ c: Connection, _ values: [any Sendable]) throws
    }

    private struct State {
        var queue: [Item] = []
        var stopping = false
        /// The writer is gathering queued-only writes until its deadline:
        /// another such write need not wake it (see `enqueue`).
        var gathering = false
    }

    private let database: Database
    /// `Database.write(lane:)`'s lane, or nil for the writer.
    private let lane: Int?
    private let state = Mutex(State())
    private let wake = Semaphore()
    private let thread = Mutex<ThreadHandle?>(nil)
    private let maxBatch: Int
    private let committed = Atomic<Int>(0)
    private let batches = Atomic<Int>(0)

    public init(database: Database, lane: Int? = nil, maxBatch: Int = 1024) {
        self.database = database
        self.lane = lane
        self.maxBatch = maxBatch
        let handle = startThread(name: "db-batch") { [self] in loop() }
        thread.withLock { $0 = handle }
    }

    /// Runs `body` in the next batch and waits until it is committed.
    /// Rethrows what `body` threw (its savepoint was rolled back) or the
    /// commit's error.
    public func perform(_ body: @escaping @Sendable (Connection) throws -> Void) throws {
        let item = Item(run: body, waits: true)
        guard enqueue(item) else { throw StoreError.misuse("the batch writer is stopped") }
        item.done!.wait()
        if let error = item.error { throw error }
    }

    /// Queues `body` without waiting; an error is logged.
    public func submit(_ body: @escaping @Sendable (Connection) throws -> Void) {
        if !enqueue(Item(run: body, waits: false)) {
            Log.shared.error("batch writer stopped; a write was dropped")
        }
    }

    /// Queues `body`; `completion` runs on the writer thread after the commit
    /// (nil error = stored), so the caller holds no thread while it waits.
    /// The completion must not block.
    public func submit(_ body: @escaping @Sendable (Connection) throws -> Void,
                       completion: @escaping @Sendable ((any Error)?) -> Void) {
        if !enqueue(Item(run: body, waits: false, completion: completion)) {
            completion(StoreError.misuse("the batch writer is stopped"))
        }
    }

    /// Queues `value` of `group` without waiting; an error is logged. The
    /// writer hands each run of consecutive values of one group in a batch
    /// to its body at once (see `WriteGroup`).
    public func submit<Value: Sendable>(_ value: Value, to group: WriteGroup<Value>) {
        if !enqueue(Item(value: value, group: group)) {
            Log.shared.error("batch writer stopped; a write was dropped")
        }
    }

    /// Writes queued and not yet taken by the writer thread.
    public var backlog: Int { state.withLock { $0.queue.count } }

    /// At most this many queued writes before `waitForRoom` holds the
    /// producer: sixteen full batches, a few tens of MB of check results.
    public var roomLimit: Int { 16 * maxBatch }

    /// Returns once fewer than `roomLimit` writes are queued (at once, unless
    /// the database is falling behind). The scheduler calls it before it
    /// starts a check, so a database that cannot keep up makes checks late
    /// (counted, visible in /metrics) instead of queueing results in memory
    /// without bound: at 500,000 monitors on PostgreSQL on two busy cores
    /// the queue grew by 1,800 results a second and the hub past 2 GB.
    public func waitForRoom() {
        while state.withLock({ $0.queue.count >= roomLimit && !$0.stopping }) { usleep(2_000) }
    }

    /// Writes committed and transactions used, for metrics.
    public var stats: (writes: Int, batches: Int) {
        (committed.load(ordering: .relaxed), batches.load(ordering: .relaxed))
    }

    /// Commits what is queued, then stops the thread.
    public func stop() {
        state.withLock { $0.stopping = true }
        wake.post()
        let handle = thread.withLock { h in let copy = h; h = nil; return copy }
        handle?.join()
    }

    /// Wakes the writer unless it is gathering and this write can wait for
    /// the gathering's end: at thousands of check results a second, a wake
    /// per result was a futex call and two context switches each, for a
    /// thread that would only go back to sleep until the same deadline.
    private func enqueue(_ item: Item) -> Bool {
        let (accepted, wakes) = state.withLock { s -> (Bool, Bool) in
            if s.stopping { return (false, false) }
            s.queue.append(item)
            return (true, !s.gathering || item.awaited || s.queue.count >= maxBatch)
        }
        if wakes { wake.post() }
        return accepted
    }

    private func loop() {
        while true {
            wake.wait()
            var (batch, stopping) = take()
            // Nobody waits on queued-only writes (check results), so they may
            // gather for a few milliseconds: one commit for many results
            // instead of one each. A waiting write (a ping, an API call) ends
            // the gathering at once.
            let deadline = Time.monotonicNanos() + Self.gatherNanos
            // Only with something in hand: an empty pass that set the flag
            // would skip the queue check below and strand a write queued
            // meanwhile without a wake-up.
            if !batch.isEmpty { state.withLock { $0.gathering = true } }
            while !stopping && !batch.isEmpty && batch.count < maxBatch && !batch.contains(where: { $0.awaited }) {
                let now = Time.monotonicNanos()
                guard now < deadline else { break }
                // Ends early only for a waiting write, a full batch or stop;
                // either way, take what queued meanwhile.
                _ = wake.wait(timeoutNanos: deadline - now)
                let (more, stop) = take(limit: maxBatch - batch.count)
                batch += more
                stopping = stop
            }
            if !batch.isEmpty {
                state.withLock { $0.gathering = false }
                run(batch)
                // Items beyond maxBatch, or queued after the last take while
                // gathering (no wake-up): come back for them.
                if state.withLock({ !$0.queue.isEmpty }) { wake.post() }
            }
            if stopping && state.withLock({ $0.queue.isEmpty }) { return }
        }
    }

    /// How long queued-only writes may wait for company (a check result
    /// lands in the database at most this much later).
    static let gatherNanos: UInt64 = 50_000_000

    /// A backlog (more than a batch queued) is taken up to this many
    /// batches at once. The writer is handed out in arrival order, so a
    /// writer of long transactions (a bulk create of a thousand monitors:
    /// 0.3 s on PostgreSQL) alternates with one batch of results each time;
    /// at 500,000 monitors one batch per turn drained fewer results than
    /// arrived, and checks were held for room for over a minute.
    static let backlogBatches = 4

    private func take(limit: Int? = nil) -> ([Item], Bool) {
        state.withLock { s -> ([Item], Bool) in
            let most = limit ?? (s.queue.count > maxBatch ? Self.backlogBatches * maxBatch : maxBatch)
            let items = Array(s.queue.prefix(most))
            s.queue.removeFirst(items.count)
            return (items, s.stopping)
        }
    }

    private func run(_ batch: [Item]) {
        do {
            // Optimistic: all writes in one plain transaction. Savepoints cost
            // two statements per write, and writes almost never fail.
            try write { c in try Self.runInOrder(batch, on: c) }
            committed.wrappingAdd(batch.count, ordering: .relaxed)
            batches.wrappingAdd(1, ordering: .relaxed)
        } catch {
            // Something failed and the whole transaction rolled back: redo the
            // batch with each write in its own savepoint, so only the failing
            // writes are lost (writes are plain database work, safe to redo).
            runIsolated(batch)
        }
        // The answers of a batch reach their event loops with one wake-up
        // per loop (see `WakeBatch`).
        WakeBatch.run {
            for item in batch {
                if let done = item.done {
                    done.post()
                } else if let completion = item.completion {
                    completion(item.error)
                } else if let error = item.error {
                    Log.shared.error("queued write failed", ["error": "\(error)"])
                }
            }
        }
        // Answered: now, if the WAL must start over, the stall of copying
        // its rest delays the next batch, not this one's answers.
        database.restartWALIfDue()
    }

    /// Every write of the batch in arrival order, a run of consecutive
    /// values of one group in one call of its body.
    private static func runInOrder(_ batch: [Item], on c: Connection) throws {
        var i = 0
        while i < batch.count {
            guard let group = batch[i].group else {
                try batch[i].runAlone(c)
                i += 1
                continue
            }
            var values: [any Sendable] = []
            while i < batch.count, case .grouped(let value, let next) = batch[i].work, next === group {
                values.append(value)
                i += 1
            }
            try group.runAll(c, values)
        }
    }

    private func write(_ body: (Connection) throws -> Void) throws {
        if let lane { try database.write(lane: lane, body) } else { try database.writeLeavingWAL(body) }
    }

    private func runIsolated(_ batch: [Item]) {
        do {
            try write { c in
                for item in batch {
                    item.error = nil
                    try c.execute("SAVEPOINT item")
                    do {
                        try item.runAlone(c)
                        try c.execute("RELEASE item")
                    } catch {
                        item.error = error
                        try c.execute("ROLLBACK TO item")
                        try c.execute("RELEASE item")
                    }
                }
            }
            committed.wrappingAdd(batch.filter { $0.error == nil }.count, ordering: .relaxed)
            batches.wrappingAdd(1, ordering: .relaxed)
        } catch {
            // The commit itself failed: nothing of the batch is stored.
            Log.shared.error("batch commit failed", ["writes": "\(batch.count)", "error": "\(error)"])
            for item in batch where item.error == nil { item.error = error }
        }
    }
}
