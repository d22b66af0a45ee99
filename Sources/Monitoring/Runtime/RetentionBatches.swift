import Core
import Store
import Synchronization

/// What one retention pass did and how long it held the writer (logged,
/// and read by bench/storage.sh through `RetentionJob.lastPass`).
public struct RetentionPassStats: Sendable, Equatable {
    /// Monitor-hours rolled up and thinned.
    public var hoursRolledUp = 0
    public var hoursThinned = 0
    /// Raw results deleted by thinning, and past `raw_days`.
    public var rawThinned = 0
    public var rawDeleted = 0
    public var hourlyDeleted = 0
    public var dailyDeleted = 0
    public var eventsDeleted = 0
    /// Write transactions the pass ran, and the longest one (body and
    /// COMMIT, ms): what a result arriving meanwhile waits for at most.
    public var transactions = 0
    public var maxTransactionMs = 0.0
    /// Wall time of the pass, ms.
    public var durationMs = 0.0

    public init() {}
}

/// Runs the retention job's writes as bounded transactions: per-monitor work
/// is grouped, several monitors to a transaction, and a transaction commits
/// once it has run `budgetNanos` (20 ms). One transaction per monitor made
/// 500,000 BEGIN/COMMITs (and as many fsyncs) an hour at 500,000 monitors;
/// one transaction for all would hold the writer for minutes.
final class RetentionBatches: Sendable {
    static let budgetNanos: UInt64 = 20_000_000

    private let database: Database
    private let stats = Mutex(RetentionPassStats())

    init(database: Database) { self.database = database }

    /// Resets the counters for a new pass.
    func begin() { stats.withLock { $0 = RetentionPassStats() } }

    func update(_ change: (inout RetentionPassStats) -> Void) { stats.withLock { change(&$0) } }

    var current: RetentionPassStats { stats.withLock { $0 } }

    /// One timed write transaction.
    func write<T>(_ body: (Connection) throws -> T) throws -> T {
        var started: UInt64 = 0
        let result = try database.write { c -> T in
            started = Time.monotonicNanos()
            return try body(c)
        }
        note(Time.monotonicNanos() - started)
        return result
    }

    /// `body` for every id, in order, in transactions of at most about the
    /// budget (the monitor that crosses it finishes first). Stops between
    /// transactions when `stop` says so; returns whether it got through.
    @discardableResult
    func each(_ ids: [Int64], stop: () -> Bool, _ body: (Connection, Int64) throws -> Void) throws -> Bool {
        var next = 0
        while next < ids.count {
            if stop() { return false }
            let first = next
            next = try write { c -> Int in
                // Restarted from `first` should the body run again: `next`
                // moves only once the transaction committed.
                let started = Time.monotonicNanos()
                var i = first
                repeat {
                    try body(c, ids[i])
                    i += 1
                } while i < ids.count && Time.monotonicNanos() - started < Self.budgetNanos
                return i
            }
        }
        return true
    }

    private func note(_ nanos: UInt64) {
        let ms = Double(nanos) / 1_000_000
        stats.withLock { s in
            s.transactions += 1
            s.maxTransactionMs = max(s.maxTransactionMs, ms)
        }
    }
}
