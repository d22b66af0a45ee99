/// A counting semaphore on a `Condition` (timed waits on the monotonic clock).
public final class Semaphore: @unchecked Sendable {
    private let condition = Condition(clock: .monotonic)
    // Only touched with `condition` locked.
    private var count = 0

    public init() {}

    public func post() {
        condition.lock()
        count += 1
        condition.signal()
        condition.unlock()
    }

    public func wait() {
        condition.lock()
        while count == 0 { condition.wait() }
        count -= 1
        condition.unlock()
    }

    /// Waits at most `nanos`; true when a post was taken, false on timeout.
    public func wait(timeoutNanos nanos: UInt64) -> Bool {
        let deadline = condition.deadline(afterNanos: nanos)
        condition.lock()
        defer { condition.unlock() }
        while count == 0 {
            if !condition.wait(until: deadline) { break }
        }
        guard count > 0 else { return false }
        count -= 1
        return true
    }
}
