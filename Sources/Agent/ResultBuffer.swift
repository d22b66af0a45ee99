import Core
import Monitoring
import Synchronization

/// Results waiting for upload: a bounded FIFO. When the hub is unreachable
/// for long, the oldest results are dropped first (the newest say most about
/// the present) and counted, so the log can say how many were lost.
///
/// An upload takes a copy of the front (`batch`) and, once the hub has
/// accepted it, removes it by sequence number (`remove(through:)`): results
/// added or dropped meanwhile do not disturb it, and a failed upload leaves
/// everything in place for the retry.
public final class ResultBuffer: Sendable {
    public struct Entry: Sendable {
        public let sequence: Int64
        public let result: UploadedResult
        /// Monotonic time it was added (for the flush interval).
        let addedAt: UInt64
        /// A check-now answer: sent at once, the hub is waiting for it.
        let urgent: Bool
    }

    struct State {
        var entries: [Entry] = []
        var head = 0
        var nextSequence: Int64 = 1
        var droppedSinceReport = 0
        var droppedTotal = 0
        var urgentCount = 0
        var count: Int { entries.count - head }
    }

    public let limit: Int
    private let state = Mutex(State())

    public init(limit: Int) {
        precondition(limit >= 1, "the buffer must hold at least one result")
        self.limit = limit
    }

    /// Adds a result; returns how many old results were dropped to make room.
    @discardableResult
    public func append(_ result: UploadedResult, urgent: Bool = false) -> Int {
        let now = Time.monotonicNanos()
        return state.withLock { s in
            var dropped = 0
            while s.count >= limit {
                if s.entries[s.head].urgent { s.urgentCount -= 1 }
                s.head += 1
                dropped += 1
            }
            s.entries.append(Entry(sequence: s.nextSequence, result: result, addedAt: now, urgent: urgent))
            s.nextSequence += 1
            if urgent { s.urgentCount += 1 }
            s.droppedSinceReport += dropped
            s.droppedTotal += dropped
            Self.compact(&s)
            return dropped
        }
    }

    /// Up to `max` results from the front, oldest first, left in place.
    public func batch(max: Int) -> [Entry] {
        state.withLock { s in Array(s.entries[s.head..<min(s.entries.count, s.head + max)]) }
    }

    /// Removes every result up to and including `sequence` (an uploaded batch).
    public func remove(through sequence: Int64) {
        state.withLock { s in
            while s.head < s.entries.count && s.entries[s.head].sequence <= sequence {
                if s.entries[s.head].urgent { s.urgentCount -= 1 }
                s.head += 1
            }
            Self.compact(&s)
        }
    }

    public var count: Int { state.withLock { $0.count } }

    /// Whether a batch should go now: a full batch, a check-now answer, or
    /// the oldest result has waited `flushMillis`. Otherwise how long until
    /// it should (nil: empty).
    func due(batchLimit: Int, flushMillis: Int) -> (now: Bool, waitMillis: Int?) {
        let now = Time.monotonicNanos()
        return state.withLock { s in
            guard s.count > 0 else { return (false, nil) }
            if s.count >= batchLimit || s.urgentCount > 0 { return (true, 0) }
            let age = Int((now &- s.entries[s.head].addedAt) / 1_000_000)
            return age >= flushMillis ? (true, 0) : (false, flushMillis - age)
        }
    }

    /// Results dropped since the last call (for one log line per episode).
    public func takeDropped() -> Int {
        state.withLock { s in
            defer { s.droppedSinceReport = 0 }
            return s.droppedSinceReport
        }
    }

    public var droppedTotal: Int { state.withLock { $0.droppedTotal } }

    /// Reclaims the consumed front once it is at least half the array.
    private static func compact(_ s: inout State) {
        if s.head > 1024 && s.head * 2 >= s.entries.count {
            s.entries.removeFirst(s.head)
            s.head = 0
        }
    }
}
