import Core
import Store
import Synchronization

/// What to do with an outbox row after one attempt (pure, tested).
public enum DeliveryDecision: Sendable, Equatable {
    case sent
    case retry(at: Int64, error: String)
    case failed(error: String)

    public static func decide(_ verdict: AttemptVerdict, createdAt: Int64, attempts: Int64, now: Int64, jitter: Double,
                              backoff: Backoff = Backoff()) -> DeliveryDecision {
        switch verdict {
        case .sent: return .sent
        case .permanent(let error): return .failed(error: error)
        case .temporary(let error, let retryAfter):
            guard let at = backoff.nextAttempt(now: now, createdAt: createdAt, attempts: attempts, retryAfter: retryAfter,
                                               jitter: jitter) else {
                return .failed(error: error + " (gave up after 24 h)")
            }
            return .retry(at: at, error: error)
        }
    }

    /// `status` is the peer's answer, or nil with `failure` on a network error.
    public static func decide(status: Int?, retryAfter: String?, failure: String?, createdAt: Int64, attempts: Int64,
                              now: Int64, jitter: Double, backoff: Backoff = Backoff()) -> DeliveryDecision {
        decide(.http(status: status, retryAfter: retryAfter, failure: failure), createdAt: createdAt, attempts: attempts,
               now: now, jitter: jitter, backoff: backoff)
    }
}

/// One thread that delivers due outbox rows through their transports. Rows are
/// claimed with a compare-and-set UPDATE (`pending` and due → `sending` until
/// `claimed_until`), sent concurrently, then marked `sent`, rescheduled, or
/// `failed`. A row whose claim expired (the hub died mid-send) is claimed
/// again and sent with the same payload, which carries the same id
/// (`X-Pingtxt-Delivery`, body `id`): the one window where a peer can see a
/// message twice, and it can tell by the id.
public final class DeliveryWorker: Sendable {
    let database: Database
    let transports: [String: any DeliveryTransport]
    let backoff: Backoff
    /// How long a claim lasts: longer than any request can take.
    let claimSeconds: Int64
    let clock: @Sendable () -> Int64
    /// Posted when new rows are queued; shared with whoever queues them.
    let wakeup: Semaphore
    let stopped = Atomic<Bool>(false)
    let thread = Mutex<ThreadHandle?>(nil)
    let decisions: DecisionSink
    let inFlight = InFlightCounter()
    /// Final outcomes per channel type, for `/metrics`.
    let counters: DeliveryCounters
    /// A row's channel type ("none" for rows of no channel, "unknown" for a deleted one).
    let channelType: @Sendable (Int64?) -> String
    /// This hub's id in its claims (hubs sharing a database; "" alone), so a
    /// dead hub's claims are released as soon as it is known dead.
    let node: String

    public init(database: Database, transports: [any DeliveryTransport], backoff: Backoff = Backoff(), claimSeconds: Int64 = 120,
                node: String = "",
                counters: DeliveryCounters = DeliveryCounters(), wakeup: Semaphore = Semaphore(),
                channelType: @escaping @Sendable (Int64?) -> String = { $0 == nil ? "none" : "unknown" },
                clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.transports = Dictionary(transports.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.backoff = backoff
        self.claimSeconds = claimSeconds
        self.clock = clock
        self.counters = counters
        self.wakeup = wakeup
        self.channelType = channelType
        self.node = node
        decisions = DecisionSink(database: database)
    }

    public func start() {
        let handle = startThread(name: "notify-delivery") { [self] in run() }
        thread.withLock { $0 = handle }
    }

    /// Delivers soon (new rows were queued).
    public func wake() { wakeup.post() }

    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wakeup.post()
        let h = thread.withLock { t -> ThreadHandle? in defer { t = nil }; return t }
        h?.join()
    }

    private func run() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var sleepSeconds: Int64 = 1
            do {
                // Not waiting for the sends: a slow mail server or relay must
                // not hold up the webhooks claimed after it. Rows in flight
                // stay `sending` (not due) until their decision is stored.
                let n = try deliverDue(waitForResults: false)
                if n > 0 { continue }
                if let next = try database.read({ try Outbox.nextDue($0) }) {
                    sleepSeconds = min(max(next - clock(), 0), 1)
                }
            } catch {
                Log.shared.error("notification delivery failed", ["error": "\(error)"])
            }
            if sleepSeconds > 0 { _ = wakeup.wait(timeoutNanos: UInt64(sleepSeconds) * 1_000_000_000) }
        }
        inFlight.waitUntilIdle()
    }

    /// Claims one batch and hands it to the transports; each row's decision is
    /// stored as soon as its transport reports it (bursts in one transaction).
    /// Returns how many rows it claimed; with `waitForResults` it returns
    /// only when every decision is stored.
    @discardableResult
    public func deliverDue(limit: Int = 500, waitForResults: Bool) throws -> Int {
        let now = clock()
        let rows = try database.write { c in try Outbox.claim(c, now: now, claimUntil: now + claimSeconds, limit: limit, node: node) }
        if rows.isEmpty { return 0 }
        let done = Semaphore()
        let byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let (backoff, clock, sink, counters) = (backoff, clock, decisions, counters)
        let types = Dictionary(rows.map { ($0.id, channelType($0.channelID)) }, uniquingKeysWith: { a, _ in a })
        inFlight.add(rows.count)
        let inFlight = self.inFlight
        let report: @Sendable (Int64, AttemptVerdict) -> Void = { id, verdict in
            guard let row = byID[id] else { return }
            let d = DeliveryDecision.decide(verdict, createdAt: row.createdAt, attempts: row.attempts, now: clock(),
                                            jitter: Double.random(in: 0..<1), backoff: backoff)
            sink.store(id, d, at: clock())
            switch d {
            case .sent: counters.record(channelType: types[id] ?? "unknown", sent: true)
            case .failed: counters.record(channelType: types[id] ?? "unknown", sent: false)
            case .retry: break
            }
            inFlight.add(-1)
            done.post()
        }
        for (name, group) in Dictionary(grouping: rows, by: \.transport) {
            guard let transport = transports[name] else {
                for row in group { report(row.id, .permanent(error: "no transport \(name) in this hub")) }
                continue
            }
            transport.deliver(group, report: report)
        }
        if waitForResults { for _ in rows { done.wait() } }
        return rows.count
    }
}
