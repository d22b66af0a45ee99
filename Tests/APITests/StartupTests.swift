import Core
import Testing

/// First start: the admin from the environment, or instructions in the log.
@Suite struct StartupTests {
    @Test func firstStartAdminExistsBeforeHealthzAnswers() throws {
        let hub = try HubProcess()
        // The hub answered /healthz 200 (start() waited for it); the admin is there already.
        let token = try hub.token()
        let me = try expectJSON(try hub.call("GET", "/api/me", token: token))
        #expect(me["email"]?.stringValue == HubProcess.adminEmail)
        #expect(me["role"]?.stringValue == "admin")
        #expect(me["scope"]?.stringValue == "write")
        #expect(hub.log.contains("first admin created"))
        #expect(!hub.log.contains(HubProcess.adminPassword))
    }

    @Test func withoutAdminEnvironmentTheLogSaysHowToCreateOne() throws {
        let hub = try HubProcess(admin: false)
        #expect(hub.log.contains("pingtxt user add"))
        let add = try hub.cli(["user", "add", "--email", "ops@example.com", "--role", "admin", "--password-stdin"],
                              stdin: "abcdefgh\n")
        #expect(add.status == .exited(0), "\(add.stderr)")
        #expect(add.stdout.contains("ops@example.com"))
        let me = try expectJSON(try hub.call("GET", "/api/me", token: try hub.token(email: "ops@example.com")))
        #expect(me["role"]?.stringValue == "admin")
        // A restart does not create a second admin nor repeat the hint.
        try hub.restart()
        #expect(hub.log.components(separatedBy: "pingtxt user add") == 2)
    }

    @Test func passwordStdinStripsTheTrailingNewline() throws {
        let box = try Sandbox()
        // A first user creates the database, so later runs print only their own line.
        let first = try box.cli(["user", "add", "--email", "first@example.com", "--role", "admin", "--password-stdin"],
                                stdin: "first-password\n")
        #expect(first.status == .exited(0), "\(first.stderr)")
        // "abcdefg\n" is 8 characters with its newline, 7 without: the policy
        // (at least 8) refuses it only if the newline was stripped.
        let short = try box.cli(["user", "add", "--email", "a@example.com", "--role", "admin", "--password-stdin"],
                                stdin: "abcdefg\n")
        #expect(short.status == .exited(1))
        #expect(short.stderrLines.count == 1 && short.stderr.contains("8 characters"), "\(short.stderr)")
        // Same for CRLF.
        let crlf = try box.cli(["user", "add", "--email", "a@example.com", "--role", "admin", "--password-stdin"],
                               stdin: "abcdefg\r\n")
        #expect(crlf.status == .exited(1), "\(crlf.stderr)")
        let ok = try box.cli(["user", "add", "--email", "a@example.com", "--role", "admin", "--password-stdin"],
                             stdin: "abcdefgh\n")
        #expect(ok.status == .exited(0), "\(ok.stderr)")
        // The password can be set again, twice, and the same stripping applies.
        for input in ["ijklmnop\n", "qrstuvwx"] {
            let passwd = try box.cli(["user", "passwd", "--email", "a@example.com", "--password-stdin"], stdin: input)
            #expect(passwd.status == .exited(0), "\(passwd.stderr)")
            #expect(passwd.stdout.contains("password set"))
        }
        let tooShort = try box.cli(["user", "passwd", "--email", "a@example.com", "--password-stdin"], stdin: "1234567\n")
        #expect(tooShort.status == .exited(1))
        let unknown = try box.cli(["user", "passwd", "--email", "nobody@example.com", "--password-stdin"], stdin: "abcdefgh\n")
        #expect(unknown.status == .exited(1))
        #expect(unknown.stderrLines.count == 1, "\(unknown.stderr)")
        let empty = try box.cli(["user", "passwd", "--email", "a@example.com", "--password-stdin"], stdin: "")
        #expect(empty.status == .exited(1))
    }
}

extension String {
    /// How many pieces `separator` cuts this into (occurrences + 1).
    func components(separatedBy separator: String) -> Int {
        var count = 1
        var rest = Substring(self)
        while let r = rest.range(of: separator) {
            count += 1
            rest = rest[r.upperBound...]
        }
        return count
    }
}
