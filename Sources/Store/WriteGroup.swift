/// Writes of one kind that cost less together than one by one: check
/// results, where a batch of them is one read of their monitors' rows and a
/// few multi-row statements instead of three statements each (on PostgreSQL
/// each statement is a round trip and a parse-bind-execute on the server).
///
/// `BatchWriter.submit(_:to:)` queues one value; the writer passes every run
/// of consecutive values of the group in a batch to `body` at once, in
/// arrival order, inside the batch's transaction. When a batch fails and is
/// redone write by write in savepoints, each value goes to `body` alone, so
/// one bad value fails by itself, as a plain `submit` does.
public final class WriteGroup<Value: Sendable>: BatchWriter.GroupRunner {
    private let body: @Sendable (Connection, [Value]) throws -> Void

    public init(_ body: @escaping @Sendable (Connection, [Value]) throws -> Void) {
        self.body = body
    }

    func runAll(_ c: Connection, _ values: [any Sendable]) throws {
        // Only this group's `submit` makes its items, so every value is a Value.
        try body(c, values.compactMap { $0 as? Value })
    }
}
