import Core
@testable import Mail
import TestSupport
import Testing

/// Certificates made once per test process (openssl CLI, temporary dir).
let mailTLS: TLSFixture? = TLSFixture()

@Suite(.serialized) struct SMTPClientTests {
    static let user = "alerts@hub.example"
    static let password = "s3cret-pässword"

    static func withServer(cert name: String = "valid", _ configure: (inout FakeSMTPServer.Config) -> Void = { _ in },
                           _ body: (FakeSMTPServer, TLSFixture) throws -> Void) throws {
        let fx = try #require(mailTLS, "openssl CLI could not make the test certificates")
        var config = FakeSMTPServer.Config()
        config.cert = fx.cert(name)
        config.key = fx.key(name)
        config.username = user
        config.password = password
        configure(&config)
        let server = try #require(FakeSMTPServer(config))
        defer { server.stop() }
        try body(server, fx)
    }

    static func settings(_ server: FakeSMTPServer, _ fx: TLSFixture, security: SMTPSettings.Security = .startTLS,
                         password: String = password, timeoutMillis: Int = 5_000) -> SMTPSettings {
        SMTPSettings(host: "127.0.0.1", port: server.port, security: security, username: user, password: password,
                     from: "alerts@hub.example", heloName: "hub.example", timeoutMillis: timeoutMillis,
                     extraCAFile: fx.caFile)
    }

    static func message(to: [String] = ["oncall@example.com", "boss@example.org"]) throws -> SMTPMessage {
        try SMTPMessage(from: "alerts@hub.example", to: to, subject: "🔴 Down: API",
                        body: "API is down since 15:00 UTC.\n.\nlatency = 9000 ms, from hub ",
                        messageID: "outbox-7@hub.example")
    }

    @Test func startTLSWithAuthPlainDeliversTheMessageIntact() throws {
        try Self.withServer { server, fx in
            let m = try Self.message()
            try SMTPClient(settings: Self.settings(server, fx)).send(m, to: m.to)
            let got = try #require(server.messages.first)
            #expect(server.messages.count == 1)
            #expect(got.from == "alerts@hub.example")
            #expect(got.recipients == ["oncall@example.com", "boss@example.org"])
            #expect(got.data == m.rendered())
            #expect(got.authenticatedUser == Self.user && got.overTLS)
            let cmds = server.commands
            #expect(cmds.prefix(3) == ["EHLO hub.example", "STARTTLS", "EHLO hub.example"])
            #expect(cmds.contains("AUTH PLAIN ***") && !cmds.contains("AUTH LOGIN"))
            #expect(cmds.last == "QUIT")
        }
    }

    @Test func authLoginWhenPlainIsNotOffered() throws {
        try Self.withServer({ $0.capabilities = ["STARTTLS", "AUTH LOGIN"] }) { server, fx in
            let m = try Self.message(to: ["oncall@example.com"])
            try SMTPClient(settings: Self.settings(server, fx)).send(m, to: m.to)
            #expect(server.messages.count == 1)
            #expect(server.messages.first?.authenticatedUser == Self.user)
            #expect(server.commands.contains("AUTH LOGIN"))
        }
    }

    @Test func implicitTLS() throws {
        try Self.withServer({ $0.implicitTLS = true; $0.capabilities = ["AUTH PLAIN LOGIN"] }) { server, fx in
            let m = try Self.message()
            try SMTPClient(settings: Self.settings(server, fx, security: .implicitTLS)).send(m, to: m.to)
            #expect(server.messages.count == 1)
            #expect(server.messages.first?.overTLS == true)
            #expect(server.messages.first?.data == m.rendered())
        }
    }

    @Test func serverWithoutStartTLSGetsNothingButEHLO() throws {
        try Self.withServer({ $0.capabilities = ["AUTH PLAIN LOGIN"] }) { server, fx in
            let m = try Self.message()
            let error = try #require(throws: SMTPError.self) {
                try SMTPClient(settings: Self.settings(server, fx)).send(m, to: m.to)
            }
            #expect(error.kind == .startTLSUnavailable && error.isPermanent)
            #expect(server.messages.isEmpty)
            #expect(server.commands.allSatisfy { $0 == "EHLO hub.example" || $0 == "QUIT" })
        }
    }

    @Test func wrongPasswordIsAPermanentAuthenticationError() throws {
        try Self.withServer { server, fx in
            let m = try Self.message()
            let error = try #require(throws: SMTPError.self) {
                try SMTPClient(settings: Self.settings(server, fx, password: "wrong-horse")).send(m, to: m.to)
            }
            #expect(error.kind == .authentication && error.isPermanent && error.replyCode == 535)
            #expect(error.message.contains("bad credentials"))
            #expect(!error.description.contains("wrong-horse") && !error.description.contains(Self.password))
            #expect(server.messages.isEmpty)
        }
    }

    @Test func temporaryRefusalAtRCPT() throws {
        try Self.withServer({ $0.failure = (.rcpt, 451) }) { server, fx in
            let m = try Self.message()
            let error = try #require(throws: SMTPError.self) {
                try SMTPClient(settings: Self.settings(server, fx)).send(m, to: m.to)
            }
            #expect(error.isTemporary && error.replyCode == 451 && error.kind == .rejected)
            #expect(server.messages.isEmpty)
        }
    }

    @Test func temporaryGreeting421() throws {
        try Self.withServer({ $0.failure = (.greeting, 421) }) { server, fx in
            let m = try Self.message()
            let error = try #require(throws: SMTPError.self) {
                try SMTPClient(settings: Self.settings(server, fx)).send(m, to: m.to)
            }
            #expect(error.isTemporary && error.replyCode == 421)
        }
    }

    @Test func permanentRefusalNamesTheRecipient() throws {
        try Self.withServer({ $0.failure = (.rcpt, 550); $0.failingRecipient = "boss@example.org" }) { server, fx in
            let m = try Self.message()
            let error = try #require(throws: SMTPError.self) {
                try SMTPClient(settings: Self.settings(server, fx)).send(m, to: m.to)
            }
            #expect(error.isPermanent && error.replyCode == 550 && error.recipient == "boss@example.org")
            #expect(error.message.contains("boss@example.org") && error.message.contains("no such user"))
            #expect(server.messages.isEmpty)
        }
    }

    @Test func permanentRefusalAfterData() throws {
        try Self.withServer({ $0.failure = (.endOfData, 554) }) { server, fx in
            let m = try Self.message()
            let error = try #require(throws: SMTPError.self) {
                try SMTPClient(settings: Self.settings(server, fx)).send(m, to: m.to)
            }
            #expect(error.isPermanent && error.replyCode == 554)
        }
    }

    @Test func silentServerTimesOutWithinBounds() throws {
        try Self.withServer({ $0.silent = true }) { server, fx in
            let m = try Self.message()
            let start = Time.monotonicNanos()
            let error = try #require(throws: SMTPError.self) {
                try SMTPClient(settings: Self.settings(server, fx, timeoutMillis: 300)).send(m, to: m.to)
            }
            let elapsed = (Time.monotonicNanos() - start) / 1_000_000
            #expect(error.kind == .timeout && error.isTemporary)
            #expect(elapsed >= 250 && elapsed < 3_000)
        }
    }

    @Test func silentServerTimesOutDuringImplicitTLSHandshake() throws {
        try Self.withServer({ $0.silent = true }) { server, fx in
            let m = try Self.message()
            let error = try #require(throws: SMTPError.self) {
                try SMTPClient(settings: Self.settings(server, fx, security: .implicitTLS, timeoutMillis: 300)).send(m, to: m.to)
            }
            #expect(error.kind == .timeout && error.isTemporary)
        }
    }

    @Test func certificateForAnotherHostIsATLSError() throws {
        try Self.withServer(cert: "wronghost") { server, fx in
            let m = try Self.message()
            let error = try #require(throws: SMTPError.self) {
                try SMTPClient(settings: Self.settings(server, fx)).send(m, to: m.to)
            }
            #expect(error.kind == .tls && error.isPermanent)
            #expect(error.message.contains("mismatch"))
            #expect(server.messages.isEmpty && !server.commands.contains { $0.hasPrefix("AUTH") })
        }
    }

    @Test func untrustedCertificateIsATLSError() throws {
        try Self.withServer { server, fx in
            var settings = Self.settings(server, fx)
            settings.extraCAFile = nil
            let m = try Self.message()
            let error = try #require(throws: SMTPError.self) { try SMTPClient(settings: settings).send(m, to: m.to) }
            #expect(error.kind == .tls && error.isPermanent)
        }
    }

    @Test func connectionRefusedIsTemporary() throws {
        let settings = SMTPSettings(host: "127.0.0.1", port: UInt16(closedPort()), security: .none,
                                    from: "a@b.c", timeoutMillis: 1_000)
        let m = try Self.message()
        let error = try #require(throws: SMTPError.self) { try SMTPClient(settings: settings).send(m, to: m.to) }
        #expect(error.kind == .network && error.isTemporary)
    }

    @Test func plainSMTPOnlyToLoopback() throws {
        let m = try Self.message()
        let remote = SMTPSettings(host: "smtp.example.com", port: 25, security: .none, from: "a@b.c")
        let error = try #require(throws: SMTPError.self) { try SMTPClient(settings: remote).send(m, to: m.to) }
        #expect(error.kind == .configuration && error.isPermanent)

        try Self.withServer({ $0.capabilities = ["8BITMIME"]; $0.username = nil }) { server, _ in
            let local = SMTPSettings(host: "127.0.0.1", port: server.port, security: .none, from: "a@b.c")
            try SMTPClient(settings: local).send(m, to: ["x@y.z"])
            #expect(server.messages.first?.recipients == ["x@y.z"] && server.messages.first?.overTLS == false)
        }
    }

    @Test func injectedEnvelopeAddressIsRefusedBeforeConnecting() throws {
        let m = try Self.message()
        let settings = SMTPSettings(host: "127.0.0.1", port: UInt16(closedPort()), security: .none, from: "a@b.c")
        let error = try #require(throws: SMTPError.self) {
            try SMTPClient(settings: settings).send(m, to: ["x@y.z>\r\nRCPT TO:<evil@z.z"])
        }
        #expect(error.kind == .invalidMessage)
    }
}
