import Core
import Monitoring

/// A clock that only moves when told to, for deterministic tests. `sleep`
/// blocks until the time is set at or past the deadline or `wake()` is
/// called, so a started `Scheduler` can be driven without real waiting;
/// `waitUntilIdle()` tells when its thread has processed everything and
/// gone back to sleep.
public final class ManualSchedulerClock: SchedulerClock, @unchecked Sendable {
    // Every stored var is only accessed with `condition` locked.
    private let condition = Condition(clock: .realtime)
    private var now: Int64
    private var woken = false
    private var sleeping = false
    private var sleepDeadline: Int64?

    public init(startMillis: Int64 = 1_800_000_000_000) {
        now = startMillis
    }

    public func nowMillis() -> Int64 {
        condition.lock()
        defer { condition.unlock() }
        return now
    }

    /// Moves the time forward.
    public func advance(by millis: Int64) {
        precondition(millis >= 0, "a manual clock only moves forward")
        condition.lock()
        now += millis
        condition.broadcast()
        condition.unlock()
    }

    /// Sets the time; setting it back simulates a wall-clock step.
    public func set(_ millis: Int64) {
        condition.lock()
        now = millis
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until a thread sleeps on this clock with nothing to wake it:
    /// no pending `wake()` and its deadline not reached.
    public func waitUntilIdle() {
        condition.lock()
        while !(sleeping && !woken && !(sleepDeadline.map { now >= $0 } ?? false)) { condition.wait() }
        condition.unlock()
    }

    public func sleep(until deadline: Int64?) {
        condition.lock()
        defer { condition.unlock() }
        while !woken && !(deadline.map { now >= $0 } ?? false) {
            sleeping = true
            sleepDeadline = deadline
            condition.broadcast()
            condition.wait()
            sleeping = false
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
