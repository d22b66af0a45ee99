#if canImport(Glibc)
import Glibc
#endif

/// One object per thread, made on the thread's first `value` and released
/// when the thread ends. For state an event loop touches on every request
/// that would otherwise sit behind a lock shared by every loop (the token
/// cache, a hash context): on two loops a shared lock's cache line moves
/// between cores on each request, and a contended `Mutex` spins.
///
/// Each instance takes one pthread key for the life of the process (there
/// are 1,024), so make them `static let`s, never one per object: state
/// that belongs to an object goes in the thread's value, tagged with its
/// owner (see `CredentialCache`).
public final class ThreadLocal<Value: AnyObject>: Sendable {
    private let key: pthread_key_t
    private let make: @Sendable () -> Value

    public init(_ make: @escaping @Sendable () -> Value) {
        var key = pthread_key_t()
        // The destructor releases the thread's value when the thread exits.
        precondition(pthread_key_create(&key, { raw in
            if let raw { Unmanaged<AnyObject>.fromOpaque(raw).release() }
        }) == 0, "pthread_key_create")
        self.key = key
        self.make = make
    }

    /// The calling thread's object: only this thread ever sees it, so it
    /// needs no lock.
    public var value: Value {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<Value>.fromOpaque(raw).takeUnretainedValue()
        }
        let made = make()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return made
    }
}
