import Core
import Store
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Stores delivery decisions as transports report them. Whoever reports
/// first while nothing is being written writes everything queued so far in
/// one transaction, and keeps going while more arrive: a burst of 500 relay
/// results becomes a few transactions, a lone webhook answer one.
final class DecisionSink: Sendable {
    let database: Database
    private let state = Mutex<(queue: [(Int64, DeliveryDecision, Int64)], writing: Bool)>(([], false))

    init(database: Database) { self.database = database }

    func store(_ id: Int64, _ decision: DeliveryDecision, at: Int64) {
        let mine = state.withLock { s -> Bool in
            s.queue.append((id, decision, at))
            if s.writing { return false }
            s.writing = true
            return true
        }
        guard mine else { return }
        while true {
            let batch = state.withLock { s -> [(Int64, DeliveryDecision, Int64)] in
                let b = s.queue
                s.queue.removeAll()
                if b.isEmpty { s.writing = false }
                return b
            }
            if batch.isEmpty { return }
            write(batch)
        }
    }

    private func write(_ batch: [(Int64, DeliveryDecision, Int64)]) {
        do {
            try database.write { c in
                for (id, d, at) in batch {
                    switch d {
                    case .sent: try Outbox.markSent(c, id: id, now: at)
                    case .retry(let next, let error): try Outbox.scheduleRetry(c, id: id, at: next, error: error)
                    case .failed(let error): try Outbox.markFailed(c, id: id, error: error)
                    }
                }
            }
        } catch {
            // The rows stay `sending`; their claim expires and they are sent
            // again with the same ids.
            Log.shared.error("could not store delivery results", ["rows": "\(batch.count)", "error": "\(error)"])
        }
        for (id, d, _) in batch {
            if case .failed(let e) = d { Log.shared.warn("notification failed", ["outbox": "\(id)", "error": e]) }
        }
    }
}

/// Sends handed out and not yet reported; `stop` waits for them.
final class InFlightCounter: Sendable {
    private let count = Mutex<Int>(0)
    func add(_ n: Int) { count.withLock { $0 += n } }
    /// Waits (at most 20 s) until every send handed out has reported.
    func waitUntilIdle() {
        for _ in 0..<400 where count.withLock({ $0 }) > 0 { usleep(50_000) }
    }
}
