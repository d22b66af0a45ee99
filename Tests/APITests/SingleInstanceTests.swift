import Core
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A hub must not silently share its port or its database with another hub,
/// and a CLI error is one line even on a database it had to create.
@Suite struct SingleInstanceTests {
    @Test func secondHubOnTheSamePortExitsWithAClearError() throws {
        let first = try HubProcess()
        let other = try Sandbox(environment: ["PINGTXT_SERVER_LISTEN": "127.0.0.1:\(first.port)"])
        let out = try other.cli(["serve"])
        #expect(out.status == .exited(1))
        #expect(out.stderrLines.last?.contains("cannot listen on 127.0.0.1:\(first.port)") == true, "\(out.stderr)")
        #expect(first.stop() == .exited(0))
    }

    @Test func secondHubOnTheSameDatabaseExitsWithAClearError() throws {
        let first = try HubProcess()
        let database = first.sandbox.environment["PINGTXT_DATABASE_PATH"]!
        let other = try Sandbox(database: database)
        let out = try other.cli(["serve"])
        #expect(out.status == .exited(1))
        #expect(out.stderrLines.last?.contains("another pingtxt hub is already running") == true, "\(out.stderr)")
        // The CLI still works beside the running hub.
        let token = try other.cli(["token", "create", "--email", HubProcess.adminEmail, "--scope", "read"])
        #expect(token.status == .exited(0))
        #expect(first.stop() == .exited(0))
    }

    @Test func cliErrorOnAFreshDatabaseIsOneLine() throws {
        let box = try Sandbox()
        let out = try box.cli(["token", "create", "--email", "nobody@example.com", "--scope", "read"])
        #expect(out.status == .exited(1))
        #expect(out.stderrLines.count == 1, "\(out.stderr)")
        #expect(out.stderrLines.first?.contains("no user with the email nobody@example.com") == true)
    }
}
