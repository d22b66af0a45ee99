import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Starting on PostgreSQL (SPEC §14): an unreachable server is tried for
/// 30 s, then `serve` exits 1 with one line that names the server without
/// its password; `check-config` checks the URL's form.
@Suite struct DatabaseStartupTests {
    @Test func unreachableServerIsRetriedFor30SecondsThenOneLineAndExit1() throws {
        // Port 1 on loopback: refused at once, every time.
        let box = try Sandbox(environment: ["PINGTXT_DATABASE_URL": "postgres://hub:topsecret@127.0.0.1:1/pingtxt"],
                              databaseURL: "postgres://hub:topsecret@127.0.0.1:1/pingtxt")
        let started = Time.monotonicNanos()
        let out = try box.cli(["serve"])
        let seconds = Double(Time.monotonicNanos() - started) / 1e9
        #expect(out.status == .exited(1))
        #expect(seconds >= 29, "gave up after \(seconds) s")
        let errors = out.stderrLines.filter { !$0.contains(" WARN ") && !$0.contains(" INFO ") }
        #expect(errors.count == 1, "\(out.stderr)")
        #expect(errors.first?.contains("cannot connect to PostgreSQL at postgres://hub:***@127.0.0.1:1/pingtxt") == true, "\(out.stderr)")
        #expect(errors.first?.contains("gave up after 30 s") == true, "\(out.stderr)")
        #expect(out.stderrLines.contains { $0.contains("database not reachable yet, retrying") })
        #expect(!out.stderr.contains("topsecret") && !out.stdout.contains("topsecret"))
    }

    @Test func checkConfigValidatesTheURL() throws {
        let box = try Sandbox()
        let bad = try box.cli(["check-config"], environment: ["PINGTXT_DATABASE_URL": "mysql://u:topsecret@h/db"])
        #expect(bad.status != .exited(0))
        #expect(bad.stderr.contains("database.url") && !bad.stderr.contains("topsecret"), "\(bad.stderr)")
        // Path and url together is an error; url alone is checked without connecting.
        let both = try box.cli(["check-config"], environment: ["PINGTXT_DATABASE_URL": "postgres://u:topsecret@db.internal/pingtxt"])
        #expect(both.status != .exited(0) && both.stderr.contains("not both"), "\(both.stderr)")
        let urlOnly = try Sandbox(databaseURL: "postgres://u:topsecret@db.internal/pingtxt")
        let good = try urlOnly.cli(["check-config"])
        #expect(good.status == .exited(0), "\(good.stderr)")
        #expect(good.stdout.contains("postgres://u:***@db.internal/pingtxt") && !good.stdout.contains("topsecret"), "\(good.stdout)")
    }
}
