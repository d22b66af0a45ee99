import Synchronization

/// One value made on one thread and taken on another: the result of a
/// closure that runs elsewhere while its caller waits (a batch-writer
/// write, a check's completion). Closures cannot capture a `Mutex` itself
/// (it cannot be copied), so it lives in this class; the lock makes the
/// hand-over safe on its own, whatever the caller waits with.
public final class Handoff<Value: Sendable>: Sendable {
    private let slot = Mutex<Value?>(nil)

    public init() {}

    public func put(_ value: Value) { slot.withLock { $0 = value } }

    /// The value put, if any, leaving the slot empty.
    public func take() -> Value? { slot.withLock { $0.take() } }
}
