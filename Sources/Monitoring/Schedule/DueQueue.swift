/// A binary min-heap of `(due, id)` ordered by due time (ties by id, so the
/// order is deterministic), with an id → heap-index map: insert, update,
/// remove and pop are O(log n); peek and lookup O(1). One entry per id.
public struct DueQueue: Sendable {
    public struct Entry: Sendable, Equatable {
        public var due: Int64
        public var id: Int64
        public init(due: Int64, id: Int64) {
            self.due = due
            self.id = id
        }

        @inline(__always) static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            a.due < b.due || (a.due == b.due && a.id < b.id)
        }
    }

    private var heap: [Entry] = []
    private var index: [Int64: Int] = [:]

    public init() {}

    public var count: Int { heap.count }
    public var isEmpty: Bool { heap.isEmpty }

    /// The earliest entry.
    public var first: Entry? { heap.first }

    public func contains(_ id: Int64) -> Bool { index[id] != nil }

    /// The due time of `id`, if queued.
    public func due(of id: Int64) -> Int64? { index[id].map { heap[$0].due } }

    /// Inserts `id`, or moves it to the new due time if already queued.
    public mutating func set(id: Int64, due: Int64) {
        if let i = index[id] {
            let old = heap[i]
            heap[i].due = due
            if Entry.precedes(heap[i], old) { siftUp(i) } else { siftDown(i) }
        } else {
            heap.append(Entry(due: due, id: id))
            index[id] = heap.count - 1
            siftUp(heap.count - 1)
        }
    }

    /// Removes `id`; returns its due time, or nil if it was not queued.
    @discardableResult
    public mutating func remove(id: Int64) -> Int64? {
        guard let i = index[id] else { return nil }
        let entry = heap[i]
        removeAt(i)
        return entry.due
    }

    /// Removes and returns the earliest entry.
    public mutating func popFirst() -> Entry? {
        guard let top = heap.first else { return nil }
        removeAt(0)
        return top
    }

    private mutating func removeAt(_ i: Int) {
        let last = heap.count - 1
        index[heap[i].id] = nil
        if i != last {
            heap[i] = heap[last]
            index[heap[i].id] = i
            heap.removeLast()
            siftDown(i)
            siftUp(i)
        } else {
            heap.removeLast()
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        index[heap[a].id] = a
        index[heap[b].id] = b
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard Entry.precedes(heap[i], heap[parent]) else { return }
            swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var best = i
            if l < heap.count && Entry.precedes(heap[l], heap[best]) { best = l }
            if r < heap.count && Entry.precedes(heap[r], heap[best]) { best = r }
            guard best != i else { return }
            swapAt(i, best)
            i = best
        }
    }

    /// Checks the heap property and the index map (for tests).
    func isValid() -> Bool {
        guard index.count == heap.count else { return false }
        for (i, e) in heap.enumerated() {
            guard index[e.id] == i else { return false }
            if i > 0 && Entry.precedes(e, heap[(i - 1) / 2]) { return false }
        }
        return true
    }
}
