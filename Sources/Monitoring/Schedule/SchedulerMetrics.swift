import Core
import Synchronization

/// One run handed out by the scheduler. Times are Unix milliseconds.
public struct ScheduledRun: Sendable, Equatable {
    public let id: Int64
    /// The slot this run is for (for a `runNow` run: when it was requested).
    public let due: Int64
    /// When the scheduler dispatched it.
    public let startedAt: Int64
    /// Whether `runNow(id:)` asked for it.
    public let manual: Bool

    public init(id: Int64, due: Int64, startedAt: Int64, manual: Bool = false) {
        self.id = id
        self.due = due
        self.startedAt = startedAt
        self.manual = manual
    }

    public var latenessMillis: Int64 { startedAt - due }
}

/// Counters for `/metrics`.
public struct SchedulerMetrics: Sendable, Equatable {
    /// Items scheduled (monitors known to the scheduler).
    public var scheduled: Int
    /// Runs dispatched and not yet `finished`.
    public var inFlight: Int
    /// Runs dispatched since start (counter).
    public var runsStarted: Int
    /// Slots skipped because the item's previous run was still going (counter).
    public var skippedOverlaps: Int
    /// Slots skipped because the scheduler fell behind — all slots busy, or
    /// the process paused — and a later slot had already come (counter).
    public var skippedLate: Int
    /// Dispatch lateness (startedAt − due) in ms: median, 99th percentile,
    /// number of samples and their sum.
    public var latenessP50: Int64
    public var latenessP99: Int64
    public var latenessCount: Int
    public var latenessSum: Int64
    /// Samples at or below each bound of `latenessBoundsMs` and not the one
    /// before (the last: above every bound); not cumulative.
    public var latenessBuckets: [Int] = []
    public static var latenessBoundsMs: [Int64] { LatenessHistogram.fixedBounds }
}
