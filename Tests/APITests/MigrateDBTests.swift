import Core
import Store
import Testing
import TestSupport

/// `pingtxt migrate-db` through the real binary (SPEC §14): a hub on SQLite
/// moves to PostgreSQL and back, keeping its monitors, its admin's password
/// and token; every refusal is exit 1 with one line.
@Suite(.enabled(if: TestEngine.all.contains(.postgres), "needs the test PostgreSQL server"))
struct MigrateDBTests {
    func expectRefusal(_ out: Subprocess.Output, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(out.status == .exited(1), "\(out.status): \(out.stderr)", sourceLocation: sourceLocation)
        #expect(out.stderrLines.count == 1 && out.stderr.hasPrefix("pingtxt: "), "stderr: \(out.stderr)", sourceLocation: sourceLocation)
        #expect(out.stderr.contains(text), "stderr: \(out.stderr)", sourceLocation: sourceLocation)
        #expect(out.stdout.isEmpty, "stdout: \(out.stdout)", sourceLocation: sourceLocation)
    }

    func monitorNames(_ hub: HubProcess, token: String) throws -> [Int64: String] {
        let list = try expectJSON(try hub.call("GET", "/api/monitors", token: token))
        var names: [Int64: String] = [:]
        for m in list["items"]?.arrayValue ?? list.arrayValue ?? [] {
            if let id = m["id"]?.intValue, let name = m["name"]?.stringValue { names[id] = name }
        }
        return names
    }

    @Test func sqliteHubMovesToPostgresAndBack() throws {
        // A hub on SQLite with a monitor and a token.
        let sqliteHub = try HubProcess()
        let token = try sqliteHub.token()
        let created = try expectJSON(try sqliteHub.call("POST", "/api/monitors", token: token,
                                                        json: ["name": "db port", "type": "tcp", "target": "127.0.0.1:1"]), 201)
        let monitorID = try #require(created["id"]?.intValue)
        let pg = try PostgresServer.shared.get().database("migrate")

        // Not while the hub runs; and the refusal leaves the target empty.
        expectRefusal(try sqliteHub.cli(["migrate-db", "--to", pg]), mentioning: "stop it before migrate-db")
        sqliteHub.stop()

        let out = try sqliteHub.cli(["migrate-db", "--to", pg])
        #expect(out.status == .exited(0), "\(out.stderr)")
        #expect(out.stdout.contains("row counts match"), "\(out.stdout)")
        let lines = out.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.contains(["monitors", "1", "1"]) && lines.contains(["users", "1", "1"]), "\(out.stdout)")
        #expect(lines.contains(["schema_migrations", "\(Migrations.all.count)", "\(Migrations.all.count)"]), "\(out.stdout)")

        // Copying again: the target is no longer empty.
        expectRefusal(try sqliteHub.cli(["migrate-db", "--to", pg]), mentioning: "not empty")

        // A hub on the PostgreSQL copy: same monitor id, same token, same password.
        let pgHub = try HubProcess(admin: false, engine: .postgres, start: false)
        pgHub.sandbox.environment["PINGTXT_DATABASE_URL"] = pg
        try pgHub.start()
        #expect(try expectJSON(try pgHub.call("GET", "/healthz"))["database"]?.stringValue == "postgres")
        #expect(try monitorNames(pgHub, token: token) == [monitorID: "db port"])
        #expect(try Browser(pgHub).login().status == 303)
        // New rows get fresh ids after the copied ones.
        let second = try expectJSON(try pgHub.call("POST", "/api/monitors", token: token,
                                                   json: ["name": "second", "type": "tcp", "target": "127.0.0.1:2"]), 201)
        #expect(second["id"]?.intValue == monitorID + 1)
        _ = try expectJSON(try pgHub.call("POST", "/api/tokens", token: token, json: ["name": "after"]), 201)
        pgHub.stop()

        // And back into a new SQLite file; never over an existing one.
        expectRefusal(try sqliteHub.cli(["migrate-db", "--from", pg]), mentioning: "already exists")
        let back = try HubProcess(admin: false, start: false)
        let copied = try back.cli(["migrate-db", "--from", pg])
        #expect(copied.status == .exited(0), "\(copied.stderr)")
        #expect(copied.stdout.split(separator: "\n").contains { $0.split(separator: " ") == ["monitors", "2", "2"] }, "\(copied.stdout)")
        try back.start()
        #expect(try monitorNames(back, token: token) == [monitorID: "db port", monitorID + 1: "second"])
        #expect(try Browser(back).login().status == 303)
    }

    @Test func badArguments() throws {
        let box = try Sandbox()
        expectRefusal(try box.cli(["migrate-db"]), mentioning: "--to URL")
        expectRefusal(try box.cli(["migrate-db", "--to", "postgres://x@h/db", "--from", "postgres://x@h/db"]), mentioning: "one of")
        expectRefusal(try box.cli(["migrate-db", "--to", "sqlite:/tmp/x.db"]), mentioning: "must be a postgres:// URL")
        expectRefusal(try box.cli(["migrate-db", "--to", "mysql://h/db"]), mentioning: "--to: database url")
        // Nothing to copy: the configured file does not exist (and is not created).
        expectRefusal(try box.cli(["migrate-db", "--to", "postgres://x@127.0.0.1:1/db"]), mentioning: "no SQLite database at")
        #expect(!Sandbox.fileExists(box.path("pingtxt.db")))
        // The configured database is PostgreSQL already.
        let onPostgres = try Sandbox(engine: .postgres)
        expectRefusal(try onPostgres.cli(["migrate-db", "--to", "postgres://x@127.0.0.1:1/db"]), mentioning: "set [database] path")
    }
}
