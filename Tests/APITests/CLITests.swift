import Core
import Testing

/// `pingtxt` subcommands: exit status 1 and one `pingtxt: …` line on stderr
/// for every refusal; `check-config` names the position of a TOML error.
@Suite struct CLITests {
    /// A sandbox whose database already exists (so only the command's own output is seen).
    func sandboxWithUsers() throws -> Sandbox {
        let box = try Sandbox()
        for (email, role) in [("admin@example.com", "admin"), ("viewer@example.com", "readonly")] {
            let out = try box.cli(["user", "add", "--email", email, "--role", role, "--password-stdin"], stdin: "password-\(role)\n")
            try #require(out.status == .exited(0), "\(out.stderr)")
        }
        return box
    }

    func expectRefusal(_ out: Subprocess.Output, mentioning text: String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(out.status == .exited(1), "\(out.status): \(out.stderr)", sourceLocation: sourceLocation)
        #expect(out.stderrLines.count == 1, "stderr: \(out.stderr)", sourceLocation: sourceLocation)
        #expect(out.stderr.hasPrefix("pingtxt: "), "stderr: \(out.stderr)", sourceLocation: sourceLocation)
        #expect(out.stderr.contains(text), "stderr: \(out.stderr)", sourceLocation: sourceLocation)
        #expect(out.stdout.isEmpty, "stdout: \(out.stdout)", sourceLocation: sourceLocation)
    }

    @Test func unknownCommand() throws {
        let box = try Sandbox()
        expectRefusal(try box.cli(["frobnicate"]), mentioning: "unknown command")
        expectRefusal(try box.cli(["user", "remove", "--email", "a@example.com"]), mentioning: "unknown command")
    }

    @Test func missingOrBadOptions() throws {
        let box = try sandboxWithUsers()
        expectRefusal(try box.cli(["user", "add", "--role", "admin"]), mentioning: "--email")
        expectRefusal(try box.cli(["user", "add", "--email", "x@example.com", "--role", "superuser"]), mentioning: "--role")
        expectRefusal(try box.cli(["user", "add", "--email", "x@example.com", "--role", "admin", "--colour", "red"]),
                      mentioning: "--colour")
        expectRefusal(try box.cli(["token", "create", "--email", "admin@example.com"]), mentioning: "--scope")
        expectRefusal(try box.cli(["token", "create", "--email", "admin@example.com", "--scope", "admin"]), mentioning: "--scope")
        expectRefusal(try box.cli(["token", "create", "--email", "nobody@example.com", "--scope", "read"]),
                      mentioning: "nobody@example.com")
        expectRefusal(try box.cli(["backup"]), mentioning: "--out")
        expectRefusal(try box.cli(["user", "add", "--email", "admin@example.com", "--role", "admin", "--password-stdin"],
                                  stdin: "another-password\n"), mentioning: "already exists")
    }

    @Test func readonlyUserCannotGetAWriteToken() throws {
        let box = try sandboxWithUsers()
        expectRefusal(try box.cli(["token", "create", "--email", "viewer@example.com", "--scope", "write"]), mentioning: "read")
        let read = try box.cli(["token", "create", "--email", "viewer@example.com", "--scope", "read"])
        #expect(read.status == .exited(0), "\(read.stderr)")
        let token = read.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(token.hasPrefix("pmk_") && token.count == 47, "\(read.stdout)")
    }

    @Test func checkConfigReportsTheLineAndColumnOfASyntaxError() throws {
        let box = try Sandbox()
        let bad = try box.writeFile("bad.toml", "[server]\nlisten = \"127.0.0.1:8080\"\nworkers = = 4\n")
        let out = try box.cli(["check-config", "--config", bad])
        #expect(out.status == .exited(1))
        #expect(out.stderr.containsPosition(after: bad), "stderr: \(out.stderr)")
        #expect(out.stderr.contains("\(bad):3:"), "stderr: \(out.stderr)")

        let unknownKey = try box.writeFile("typo.toml", "[server]\nworkerz = 4\n")
        let typo = try box.cli(["check-config", "--config", unknownKey])
        #expect(typo.status == .exited(1))
        #expect(typo.stderr.containsPosition(after: unknownKey), "stderr: \(typo.stderr)")
        #expect(typo.stderr.contains("server.workerz"), "stderr: \(typo.stderr)")
    }

    @Test func checkConfigAcceptsAGoodFileAndTheExample() throws {
        let box = try Sandbox()
        let good = try box.writeFile("good.toml", "[server]\nworkers = 8\n\n[metrics]\npublic = true\n")
        let out = try box.cli(["check-config", "--config", good])
        #expect(out.status == .exited(0), "\(out.stderr)")
        #expect(out.stdout.contains("OK"))
        let bare = try box.cli(["check-config"])
        #expect(bare.status == .exited(0), "\(bare.stderr)")
        // An environment override is validated too.
        let env = try box.cli(["check-config"], environment: ["PINGTXT_SERVER_WORKERS": "lots"])
        #expect(env.status == .exited(1))
        #expect(env.stderr.contains("PINGTXT_SERVER_WORKERS"), "\(env.stderr)")
        #expect(try box.cli(["check-config", "--config", box.path("missing.toml")]).status == .exited(1))
    }

    @Test func version() throws {
        let box = try Sandbox()
        let out = try box.cli(["version"])
        #expect(out.status == .exited(0))
        #expect(out.stdout.hasPrefix("pingtxt "))
        #expect(out.stdout.contains("0.1.0"))
        #expect(out.stderr.isEmpty)
    }
}
