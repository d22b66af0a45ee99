#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex with its condition variable, on the heap (pthread objects
/// must never move). The one place for this boilerplate: `Semaphore`, the
/// scheduler's clock and the agent's stop latch are built on it. Callers
/// hold `lock()` around every access to the state the condition guards.
public final class Condition: @unchecked Sendable {
    public enum Clock: Sendable {
        /// For timeouts: a wall-clock step must not stretch them.
        case monotonic
        /// For deadlines that are wall-clock times (stored Unix times).
        case realtime
    }

    // Only touched through pthread calls, which synchronise themselves.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    public let clock: Clock

    public init(clock: Clock = .monotonic) {
        self.clock = clock
        mutex.initialize(to: pthread_mutex_t())
        cond.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, clock == .monotonic ? CLOCK_MONOTONIC : CLOCK_REALTIME)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    public func signal() { pthread_cond_signal(cond) }
    public func broadcast() { pthread_cond_broadcast(cond) }

    /// Waits for a signal (spurious wake-ups happen: loop on your predicate).
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits until `deadline` on this condition's clock; false on timeout.
    @discardableResult
    public func wait(until deadline: timespec) -> Bool {
        var d = deadline
        return pthread_cond_timedwait(cond, mutex, &d) != ETIMEDOUT
    }

    /// Now plus `nanos` on this condition's clock, for `wait(until:)`.
    public func deadline(afterNanos nanos: UInt64) -> timespec {
        var t = timespec()
        clock_gettime(clock == .monotonic ? CLOCK_MONOTONIC : CLOCK_REALTIME, &t)
        let total = UInt64(t.tv_nsec) + nanos % 1_000_000_000
        t.tv_sec += Int(nanos / 1_000_000_000) + Int(total / 1_000_000_000)
        t.tv_nsec = Int(total % 1_000_000_000)
        return t
    }

    /// A wall-clock deadline in Unix milliseconds (for `.realtime`).
    public static func deadline(unixMillis: Int64) -> timespec {
        var t = timespec()
        t.tv_sec = Int(unixMillis / 1000)
        t.tv_nsec = Int(unixMillis % 1000) * 1_000_000
        return t
    }
}
