/// A binary min-heap of deadlines. Entries are never removed early: each
/// carries the owner's sequence number at scheduling time and the loop drops
/// entries whose owner has moved on (lazy deletion), so rescheduling is one
/// O(log n) push and thousands of deadlines cost almost nothing.
struct TimerHeap {
    struct Entry {
        let at: UInt64
        let id: UInt64
        let seq: UInt32
    }

    private var items: [Entry] = []

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    var earliest: UInt64? { items.first?.at }

    mutating func push(_ e: Entry) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if items[parent].at <= items[i].at { break }
            items.swapAt(parent, i)
            i = parent
        }
    }

    /// Removes and returns the earliest entry due at or before `now`.
    mutating func popDue(now: UInt64) -> Entry? {
        guard let first = items.first, first.at <= now else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            let n = items.count
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < n && items[l].at < items[m].at { m = l }
                if r < n && items[r].at < items[m].at { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return first
    }
}
