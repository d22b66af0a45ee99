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
        pthread_cond_init(cond, nil)
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
}
