#if canImport(Glibc)
import Glibc
#endif
import CShims

/// Starts a named POSIX thread. The body crosses to the new thread in a box
/// passed through `Unmanaged`: a capturing closure handed to `pthread_create`
/// directly crashes the compiler in Swift 6 mode (NOTES.md), and the body
/// must be `@Sendable` so it is not main-actor isolated.
public struct ThreadHandle: Sendable {
    let thread: pthread_t

    /// Waits for the thread to end.
    public func join() {
        pthread_join(thread, nil)
    }

    /// Lets the thread's resources go when it ends (nobody will join it).
    public func detach() {
        pthread_detach(thread)
    }
}

/// Immutable and made of Sendable parts, so the compiler checks it.
private final class ThreadBox: Sendable {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}

public func startThread(name: String, stackSize: Int = 512 * 1024,
                        _ body: @escaping @Sendable () -> Void) -> ThreadHandle {
    let box = Unmanaged.passRetained(ThreadBox(name: name, body: body))
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    pthread_attr_setstacksize(&attr, stackSize)
    defer { pthread_attr_destroy(&attr) }
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attr, { raw in
        let box = Unmanaged<ThreadBox>.fromOpaque(raw!).takeRetainedValue()
        box.name.withCString { pt_set_thread_name($0) }
        box.body()
        return nil
    }, box.toOpaque())
    precondition(rc == 0, "pthread_create failed: \(rc)")
    return ThreadHandle(thread: thread)
}
