#if canImport(Glibc)
import Glibc
#endif

/// A one-way "stop" flag that sleeping threads notice at once. Every loop of
/// the agent (uploader backoff, poll backoff, start-up retries) sleeps on it,
/// so SIGTERM ends all of them without waiting out a 30 s backoff. Also
/// carries "nudges" (work arrived) for the one thread that `sleep`s with
/// `wakeOnNudge`.
final class StopLatch: @unchecked Sendable {
    // The pthread objects live on the heap (they must never move); every
    // stored var is only touched with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var stopped = false
    private var nudged = false

    init() {
        pthread_mutex_init(mutex, nil)
        // CLOCK_MONOTONIC: a wall-clock step must not stretch a backoff.
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

    var isStopped: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return stopped
    }

    func stop() {
        pthread_mutex_lock(mutex)
        stopped = true
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
    }

    /// Ends a `sleep(…, wakeOnNudge: true)` early (remembered if nobody sleeps).
    func nudge() {
        pthread_mutex_lock(mutex)
        nudged = true
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps up to `millis` (nil: until stopped or nudged); returns true
    /// when stopped.
    @discardableResult
    func sleep(millis: Int?, wakeOnNudge: Bool = false) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        if let millis {
            let nanos = Int(deadline.tv_nsec) + (max(0, millis) % 1000) * 1_000_000
            deadline.tv_sec += max(0, millis) / 1000 + nanos / 1_000_000_000
            deadline.tv_nsec = nanos % 1_000_000_000
        }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !stopped && !(wakeOnNudge && nudged) {
            if millis == nil {
                pthread_cond_wait(cond, mutex)
            } else if pthread_cond_timedwait(cond, mutex, &deadline) == ETIMEDOUT {
                break
            }
        }
        if wakeOnNudge { nudged = false }
        return stopped
    }
}
