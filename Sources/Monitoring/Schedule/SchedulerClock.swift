#if canImport(Glibc)
import Glibc
#endif
import Core

/// Time source and sleeper for `Scheduler`. Times are Unix milliseconds.
public protocol SchedulerClock: Sendable {
    func nowMillis() -> Int64
    /// Blocks until `nowMillis() >= deadline` (nil: no deadline) or until
    /// `wake()` is called. A `wake()` that arrives while nobody sleeps is
    /// remembered and ends the next `sleep` at once, so a wake-up between the
    /// scheduler computing its deadline and going to sleep is never lost.
    func sleep(until deadline: Int64?)
    /// Ends the current (or next) `sleep` early.
    func wake()
}

/// The real clock: `Time.nowMillis()` (wall clock, since due times are
/// stored as Unix times) and a condition variable timed on CLOCK_REALTIME,
/// so a sleep also ends when the wall clock is stepped past the deadline.
public final class SystemSchedulerClock: SchedulerClock, @unchecked Sendable {
    // `woken` is only accessed with `condition` locked.
    private let condition = Condition(clock: .realtime)
    private var woken = false

    public init() {}

    public func nowMillis() -> Int64 { Time.nowMillis() }

    public func sleep(until deadline: Int64?) {
        condition.lock()
        defer { condition.unlock() }
        while !woken {
            if let deadline {
                if Time.nowMillis() >= deadline { break }
                condition.wait(until: Condition.deadline(unixMillis: deadline))
            } else {
                condition.wait()
            }
        }
        woken = false
    }

    public func wake() {
        condition.lock()
        woken = true
        condition.broadcast()
        condition.unlock()
    }
}
