#if canImport(Glibc)
import Glibc
#endif

/// A counting semaphore on a pthread mutex and condition variable.
public final class Semaphore: @unchecked Sendable {
    // The pthread objects are heap-allocated so their addresses never move;
    // all access goes through the mutex, which makes the class thread-safe.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var count = 0

    public init() {
        pthread_mutex_init(mutex, nil)
        // CLOCK_MONOTONIC for timed waits: a wall-clock step must not stretch them.
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    public func post() {
        pthread_mutex_lock(mutex)
        count += 1
        pthread_cond_signal(cond)
        pthread_mutex_unlock(mutex)
    }

    public func wait() {
        pthread_mutex_lock(mutex)
        while count == 0 { pthread_cond_wait(cond, mutex) }
        count -= 1
        pthread_mutex_unlock(mutex)
    }

    /// Waits at most `nanos`; true when a post was taken, false on timeout.
    public func wait(timeoutNanos nanos: UInt64) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = UInt64(deadline.tv_nsec) + nanos % 1_000_000_000
        deadline.tv_sec += Int(nanos / 1_000_000_000) + Int(total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == 0 {
            if pthread_cond_timedwait(cond, mutex, &deadline) == ETIMEDOUT { break }
        }
        guard count > 0 else { return false }
        count -= 1
        return true
    }
}
