import Synchronization

/// A shared, only-growing count (checks run, say) that closures built
/// before their owner can capture: an `Atomic` itself cannot be copied into
/// a closure.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public func add(_ n: Int) { value.wrappingAdd(n, ordering: .relaxed) }

    public var current: Int { value.load(ordering: .relaxed) }
}
