#if canImport(Glibc)
import Glibc
#endif

/// Something a thread wakes after handing it work (an event loop's mailbox).
public protocol Wakeable: AnyObject, Sendable {
    /// Wakes the owner now, from any thread.
    func wakeNow()
}

/// Wake-ups held back while one thread hands out a run of answers, then
/// given once per target. The batch writer completes a group commit's
/// writes one after another (26 heartbeat pings per commit on average under
/// load); each answer goes to its connection's event loop, and waking the
/// loop for the first answer let it run — preempting the writer on a
/// two-core machine — to find one answer, go back to sleep, and be woken
/// again for the next: five eventfd writes and as many context switches
/// per commit where one per loop does.
///
/// Only the thread inside `run` defers; anywhere else `deferred` returns
/// false and the caller wakes at once. Every wake deferred is given before
/// `run` returns, so nothing is ever left asleep.
public enum WakeBatch {
    private final class Pending {
        var targets: [any Wakeable] = []
    }

    /// The current thread's pending wakes while it is inside `run`.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create")
        return key
    }()

    /// Runs `body`; wakes asked for on this thread meanwhile (`deferred`)
    /// are given when it ends, each target once, in first-asked order.
    public static func run<T>(_ body: () throws -> T) rethrows -> T {
        if pthread_getspecific(key) != nil { return try body() }   // nested: the outer run wakes
        let pending = Pending()
        pthread_setspecific(key, Unmanaged.passUnretained(pending).toOpaque())
        defer {
            pthread_setspecific(key, nil)
            for target in pending.targets { target.wakeNow() }
        }
        return try withExtendedLifetime(pending) { try body() }
    }

    /// Inside `run` on this thread: remembers `target` for the end of the run
    /// and returns true. Elsewhere: returns false (wake it yourself).
    public static func deferred(_ target: any Wakeable) -> Bool {
        guard let raw = pthread_getspecific(key) else { return false }
        let pending = Unmanaged<Pending>.fromOpaque(raw).takeUnretainedValue()
        if !pending.targets.contains(where: { $0 === target }) { pending.targets.append(target) }
        return true
    }
}
