/// Where a reader of an append-only table stands, when the table's ids are
/// handed out at INSERT but rows become visible at COMMIT.
///
/// On PostgreSQL two writers can commit out of order: the transaction that
/// took id 10 may commit after the one that took 11 (an identity is a
/// sequence, and "nextval … is never rolled back", manual §9.17). A reader
/// that only asks for `id > the last id seen` would then skip 10 for ever.
/// So the ids between two seen ones are kept as *awaited* and asked for
/// again on the next reads, until they show up or `patienceMillis` has
/// passed (a rolled-back insert or a sequence that jumped after a crash
/// leaves a hole that never fills). A transaction open for longer than
/// that is not something the hub makes: its writes are single statements
/// or short batches.
///
/// Too many holes at once (a rolled-back bulk import) is `overflowed`: the
/// caller reads everything again and starts from a fresh cursor, which is
/// always correct, only slower.
///
/// Pure: the reader passes the ids it got and the time.
public struct CommitCursor: Sendable, Equatable {
    /// Every id at or below this was seen, or is in `awaited`.
    public private(set) var after: Int64
    /// Holes below `after`: id → when it was first missed (Unix ms).
    private var missing: [Int64: Int64] = [:]
    /// More holes than `maxAwaited`: read everything again.
    public private(set) var overflowed = false

    public static let patienceMillis: Int64 = 60_000
    public static let maxAwaited = 4_096

    public init(after: Int64) { self.after = after }

    /// The holes still awaited, ascending: ask for these as well as for
    /// ids above `after`.
    public var awaited: [Int64] { missing.keys.sorted() }

    /// Takes the ids one read returned (any order: those above `after` and
    /// any awaited ones that appeared) at `now`, and gives up on holes
    /// older than the patience.
    public mutating func take(_ ids: [Int64], now: Int64) {
        var above: [Int64] = []
        for id in ids {
            if id > after { above.append(id) } else { missing[id] = nil }
        }
        above.sort()
        for id in above where id > after {
            // Holes between the last id and this one: at most maxAwaited are
            // worth remembering, more than that overflows whatever the jump.
            let gap = id - after - 1
            if gap > Int64(Self.maxAwaited) {
                overflowed = true
            } else if gap > 0 {
                for hole in (after + 1)..<id { missing[hole] = now }
            }
            after = id
        }
        expire(now: now)
    }

    /// Takes one read given by its bounds rather than every id: each id in
    /// (`after`, `last`] was there but `holes` (ascending, as the reader
    /// found them), and `appeared` are the awaited ids that showed up. The
    /// same cursor as `take` with the ids themselves, for a table that gets
    /// tens of thousands of rows between two reads (heartbeat pings).
    public mutating func take(upTo last: Int64, holes: [Int64], appeared: [Int64], now: Int64) {
        for id in appeared { missing[id] = nil }
        if last > after {
            if holes.count > Self.maxAwaited {
                overflowed = true
            } else {
                for hole in holes where hole > after && hole < last { missing[hole] = now }
            }
            after = last
        }
        expire(now: now)
    }

    private mutating func expire(now: Int64) {
        missing = missing.filter { now - $0.value < Self.patienceMillis }
        if missing.count > Self.maxAwaited { overflowed = true }
        if overflowed { missing.removeAll() }
    }
}
