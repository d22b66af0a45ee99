import Core
import Store
import Testing
import TestSupport

/// A PostgreSQL server that restarts (or fails over) under a running hub:
/// every connection breaks; the next transaction on each reconnects first
/// (SPEC §14: a hub survives its database going away and coming back).
@Suite(.enabled(if: TestEngine.all.contains(.postgres))) struct ReconnectTests {
    @Test func aRestartedServerIsReconnectedBeforeTheNextTransaction() throws {
        let server = try PostgresServer.makePrivate()
        let db = try Database(url: DatabaseURL(server.database()), readers: 2)
        defer { db.close() }
        try db.write { try Meta.set($0, "k", "1") }
        #expect(try db.read { try Meta.get($0, "k") } == "1")
        #expect(try db.readStatement { try Meta.get($0, "k") } == "1")
        try server.restart()
        // Writer, readers in transactions, and single reads all work again,
        // with nothing lost that was committed before the restart.
        try db.write { try Meta.set($0, "k", "2") }
        for _ in 0..<3 {
            #expect(try db.read { try Meta.get($0, "k") } == "2")
            #expect(try db.readStatement { try Meta.get($0, "k") } == "2")
        }
        // Statements prepared before the restart are prepared again.
        try db.write { c in _ = try Users.insert(c, email: "a@example.com", name: "", role: "admin", passwordHash: nil, now: 1) }
        try server.restart()
        #expect(try db.read { try Users.count($0) } == 1)
        try db.write { c in _ = try Users.insert(c, email: "b@example.com", name: "", role: "admin", passwordHash: nil, now: 1) }
        #expect(try db.read { try Users.count($0) } == 2)
    }
}
