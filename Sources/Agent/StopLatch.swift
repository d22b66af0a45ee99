import Core

/// A one-way "stop" flag that sleeping threads notice at once. Every loop of
/// the agent (uploader backoff, poll backoff, start-up retries) sleeps on it,
/// so SIGTERM ends all of them without waiting out a 30 s backoff. Also
/// carries "nudges" (work arrived) for the one thread that `sleep`s with
/// `wakeOnNudge`.
final class StopLatch: @unchecked Sendable {
    private let condition = Condition(clock: .monotonic)
    // Only touched with `condition` locked.
    private var stopped = false
    private var nudged = false

    init() {}

    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Ends a `sleep(…, wakeOnNudge: true)` early (remembered if nobody sleeps).
    func nudge() {
        condition.lock()
        nudged = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps up to `millis` (nil: until stopped or nudged); returns true
    /// when stopped.
    @discardableResult
    func sleep(millis: Int?, wakeOnNudge: Bool = false) -> Bool {
        let deadline = millis.map { condition.deadline(afterNanos: UInt64(max(0, $0)) * 1_000_000) }
        condition.lock()
        defer { condition.unlock() }
        while !stopped && !(wakeOnNudge && nudged) {
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                condition.wait()
            }
        }
        if wakeOnNudge { nudged = false }
        return stopped
    }
}
