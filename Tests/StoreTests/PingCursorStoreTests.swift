import Testing
import Core
@testable import Store
import TestSupport

/// `Heartbeats.pingedSince(cursor:)`: the hub that judges a heartbeat
/// learns of every ping another hub stored, including one whose id is
/// smaller than a ping already read (committed later), on both engines;
/// on PostgreSQL also through two real transactions committed out of order.
@Suite struct PingCursorStoreTests {
    private static func ping(_ id: Int64?, _ monitor: Int64) -> String {
        let idColumn = id.map { _ in "id, " } ?? ""
        let idValue = id.map { "\($0), " } ?? ""
        return "INSERT INTO heartbeat_pings (\(idColumn)monitor_id, at_ms, kind) VALUES (\(idValue)\(monitor), 1000, 'success')"
    }

    private static func monitors(_ db: Database, _ n: Int) throws -> [Int64] {
        try db.write { c in
            try (0..<n).map { i throws(StoreError) in
                try Monitors.insert(c, MonitorRecord(name: "hb\(i)", type: "heartbeat", target: "", interval: 60, timeout: 10,
                                                     retries: 0), now: 1).id
            }
        }
    }

    @Test(arguments: TestEngine.all) func holesAreAwaitedAndTheirMonitorsReportedWhenTheyAppear(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let m = try Self.monitors(db, 6)
        // Ids 1, 2, 3, 5, 6, 9 visible; 4, 7 and 8 taken by inserts not committed yet.
        try db.write { c in
            for (id, monitor) in [(1, m[0]), (2, m[0]), (3, m[1]), (5, m[2]), (6, m[2]), (9, m[3])] {
                try c.execute(Self.ping(Int64(id), monitor))
            }
        }
        var cursor = CommitCursor(after: 0)
        let first = try db.read { c in try Heartbeats.pingedSince(c, cursor: cursor) }
        #expect(first == Heartbeats.PingedSince(monitors: [m[0], m[1], m[2], m[3]].sorted(), last: 9, holes: [4, 7, 8],
                                                appeared: []))
        #expect(!first.tooManyHoles)
        cursor.take(upTo: first.last, holes: first.holes, appeared: first.appeared, now: 0)
        #expect(cursor.after == 9 && cursor.awaited == [4, 7, 8])
        // 7 and 4 commit now, with a new ping above.
        try db.write { c in
            try c.execute(Self.ping(7, m[4]))
            try c.execute(Self.ping(4, m[5]))
            try c.execute(Self.ping(10, m[0]))
        }
        let second = try db.read { c in try Heartbeats.pingedSince(c, cursor: cursor) }
        #expect(second.monitors == [m[0], m[4], m[5]].sorted())
        #expect(second.last == 10 && second.holes.isEmpty && Set(second.appeared) == [4, 7] && !second.tooManyHoles)
        cursor.take(upTo: second.last, holes: second.holes, appeared: second.appeared, now: 1_000)
        #expect(cursor.after == 10 && cursor.awaited == [8])
        // Nothing new: nothing reported, the cursor stays.
        let third = try db.read { c in try Heartbeats.pingedSince(c, cursor: cursor) }
        #expect(third == Heartbeats.PingedSince(monitors: [], last: 10, holes: [], appeared: []))
        // A gap wider than a cursor awaits.
        try db.write { c in try c.execute(Self.ping(Int64(12 + CommitCursor.maxAwaited), m[1])) }
        let wide = try db.read { c in try Heartbeats.pingedSince(c, cursor: cursor) }
        #expect(wide.tooManyHoles && wide.holes.count == CommitCursor.maxAwaited + 1 && wide.last == Int64(12 + CommitCursor.maxAwaited))
        #expect(wide.monitors == [m[1]])
        // Taking it overflows the cursor, which is what tells the judge to
        // judge everything (it once came back with no holes and did not).
        var taken = cursor
        taken.take(upTo: wide.last, holes: wide.holes, appeared: wide.appeared, now: 2_000)
        #expect(taken.overflowed)
    }

    @Test func twoHubsCommittingOutOfOrderLoseNoPing() throws {
        guard TestEngine.all.contains(.postgres) else { return }
        let url = try TestEngine.postgres.url(in: "")
        let hubA = try Database(url: DatabaseURL(url), readers: 1, migrations: Migrations.all)
        let hubB = try Database(url: DatabaseURL(url), readers: 1, migrations: Migrations.all)
        let m = try Self.monitors(hubA, 2)
        var cursor = CommitCursor(after: try hubA.read { c in try Heartbeats.newestPingID(c) })
        var seen = Set<Int64>()
        try hubA.write { a in
            // Hub A takes the smaller id and holds its transaction open while
            // hub B stores a ping and commits; the judging hub reads between.
            try a.execute(Self.ping(nil, m[0]))
            try hubB.write { b in try b.execute(Self.ping(nil, m[1])) }
            let read = try hubB.read { c in try Heartbeats.pingedSince(c, cursor: cursor) }
            #expect(read.monitors == [m[1]] && read.holes.count == 1)
            seen.formUnion(read.monitors)
            cursor.take(upTo: read.last, holes: read.holes, appeared: read.appeared, now: 0)
        }
        #expect(cursor.awaited.count == 1)
        let after = try hubB.read { c in try Heartbeats.pingedSince(c, cursor: cursor) }
        seen.formUnion(after.monitors)
        #expect(after.monitors == [m[0]] && after.appeared == cursor.awaited)
        #expect(seen == Set(m))
    }
}
