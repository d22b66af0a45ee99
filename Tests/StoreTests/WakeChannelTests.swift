#if canImport(Glibc)
import Glibc
#endif
import Core
import Synchronization
import Testing
import Store
import TestSupport

/// The wake-up channel on a real PostgreSQL server: delivered at commit,
/// never for a rollback, foreign payloads ignored, and listening again
/// (with a resync) after the server restarts under it.
@Suite(.enabled(if: TestEngine.all.contains(.postgres))) struct WakeChannelTests {
    final class Received: Sendable {
        let events = Mutex<[WakeChannel.Event]>([])
        func add(_ e: WakeChannel.Event) { events.withLock { $0.append(e) } }
        var all: [WakeChannel.Event] { events.withLock { $0 } }
        func count(_ e: WakeChannel.Event) -> Int { all.filter { $0 == e }.count }
    }

    struct Rollback: Error {}

    @Test func deliveredAtCommitNotOnRollbackAndAgainAfterARestart() throws {
        let server = try PostgresServer.makePrivate()
        let db = try Database(url: DatabaseURL(server.database("wake")), readers: 1)
        defer { db.close() }
        let wake = try WakeChannel(database: db)
        #expect(wake.isActive && wake.name.hasPrefix("pingtxt_wake_"), "a test schema is not public: \(wake.name)")
        let received = Received()
        wake.start { received.add($0) }
        defer { wake.stop() }
        #expect(waitUntil(timeoutMillis: 10_000) { received.count(.resync) == 1 }, "listening: \(received.all)")

        // Nothing arrives before the commit.
        let inside = Mutex(-1)
        try db.write { c in
            try wake.send(c, .check(agentID: 7))
            usleep(300_000)
            inside.withLock { $0 = received.count(.signal(.check(agentID: 7))) }
        }
        #expect(inside.withLock { $0 } == 0)
        #expect(waitUntil(timeoutMillis: 5_000) { received.count(.signal(.check(agentID: 7))) == 1 })

        // A rolled-back write sends nothing; foreign payloads are dropped. The
        // signal after them is delivered after them (commit order), so once
        // it is here they would have been too.
        #expect(throws: Rollback.self) {
            try db.write { c in
                try wake.send(c, .check(agentID: 8))
                throw Rollback()
            }
        }
        try server.execute("SELECT pg_notify('\(wake.name)', 'drop table monitors'), pg_notify('\(wake.name)', 'check:0')")
        try db.write { c in
            try wake.send(c, .answered(requestID: "c-9"))
            try wake.send(c, .answered(requestID: "c-9"))
            try wake.send(c, .monitors)
        }
        #expect(waitUntil(timeoutMillis: 5_000) { received.count(.signal(.monitors)) == 1 })
        #expect(received.all == [.resync, .signal(.check(agentID: 7)), .signal(.answered(requestID: "c-9")), .signal(.monitors)],
                "\(received.all)")

        // The server restarts: every connection breaks; the listener
        // reconnects by itself and says so (signals may have been missed).
        try server.restart()
        #expect(waitUntil(timeoutMillis: 20_000) { received.count(.resync) == 2 }, "listening again: \(received.all)")
        try db.write { c in try wake.send(c, .agents) }
        #expect(waitUntil(timeoutMillis: 5_000) { received.count(.signal(.agents)) == 1 }, "\(received.all)")

        // Stopped: nothing more arrives.
        wake.stop()
        try db.write { c in try wake.send(c, .check(agentID: 99)) }
        usleep(500_000)
        #expect(received.count(.signal(.check(agentID: 99))) == 0)
    }
}
