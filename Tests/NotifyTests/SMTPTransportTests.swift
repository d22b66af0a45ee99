import Core
import Mail
import Notify
import Store
import Synchronization
import Testing
import TestSupport

let smtpTLS: TLSFixture? = TLSFixture()

/// A header's value from a received message (folded lines joined).
func mailHeader(_ data: String, _ name: String) -> String? {
    let head = headAndBody(data).head
    var value: String?
    for line in head.split(separator: "\r\n", omittingEmptySubsequences: false) {
        if let v = value, line.hasPrefix(" ") || line.hasPrefix("\t") {
            value = v + line
        } else if value != nil {
            return value
        } else if line.lowercased().hasPrefix(name.lowercased() + ":") {
            value = String(line.dropFirst(name.count + 1).drop { $0 == " " })
        }
    }
    return value
}

/// `=?UTF-8?B?…?=` words decoded (plain text passes through).
func decodedSubject(_ raw: String) -> String {
    let words = raw.split(separator: " ")
    guard words.allSatisfy({ $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") }) else { return raw }
    let bytes = words.flatMap { decodeBase64(String($0.dropFirst(10).dropLast(2))) }
    return String(decoding: bytes, as: UTF8.self)
}

/// The quoted-printable body decoded.
func mailBody(_ data: String) -> String {
    String(decoding: QuotedPrintable.decode(headAndBody(data).body), as: UTF8.self)
}

/// A message split at its first empty line.
func headAndBody(_ data: String) -> (head: String, body: String) {
    guard let r = data.firstRange(of: "\r\n\r\n") else { return (data, "") }
    return (String(data[..<r.lowerBound]), String(data[r.upperBound...]))
}

/// The `smtp` transport against a real loopback SMTP server.
@Suite(.serialized) struct SMTPTransportTests {
    static let from = "alerts@hub.example"

    static func row(_ n: Notification = down, id: Int64 = 481, to: JSON = ["to": ["oncall@example.com"]]) throws -> OutboxRecord {
        var n = n
        n.outboxID = id
        let payload = try #require(try sender(.email, to).outboxPayload(for: n))
        var r = OutboxRecord(channelID: 1, eventID: nil, kind: "alert", transport: payload.transport, payload: payload.text,
                             nextAttemptAt: 0)
        r.id = id
        r.createdAt = 1_764_410_520
        return r
    }

    /// Delivers and waits (bounded) for one verdict per row.
    static func deliver(_ t: SMTPTransport, _ rows: [OutboxRecord]) -> [Int64: AttemptVerdict] {
        let got = Mutex<[Int64: AttemptVerdict]>([:])
        let done = Semaphore()
        t.deliver(rows) { id, verdict in
            got.withLock { $0[id] = verdict }
            done.post()
        }
        for _ in rows { _ = done.wait(timeoutNanos: 15_000_000_000) }
        return got.withLock { $0 }
    }

    static func plain(_ server: FakeSMTPServer, timeoutMillis: Int = 5_000) -> SMTPSettings {
        SMTPSettings(host: "127.0.0.1", port: server.port, security: .none, from: from, heloName: "hub.example",
                     timeoutMillis: timeoutMillis)
    }

    static func server(_ configure: (inout FakeSMTPServer.Config) -> Void = { _ in }) throws -> FakeSMTPServer {
        var c = FakeSMTPServer.Config()
        c.capabilities = ["8BITMIME"]
        configure(&c)
        return try #require(FakeSMTPServer(c))
    }

    @Test func sentOverSTARTTLSWithStableIDsAndAReadableText() throws {
        let fx = try #require(smtpTLS, "openssl CLI could not make the test certificates")
        var c = FakeSMTPServer.Config()
        (c.cert, c.key, c.username, c.password) = (fx.cert("valid"), fx.key("valid"), "alerts", "pw-1")
        let server = try #require(FakeSMTPServer(c))
        defer { server.stop() }
        let t = SMTPTransport(settings: SMTPSettings(host: "127.0.0.1", port: server.port, username: "alerts", password: "pw-1",
                                                     from: Self.from, timeoutMillis: 5_000, extraCAFile: fx.caFile))
        defer { t.shutdown() }
        let r = try Self.row(to: ["to": ["oncall@example.com", "boss@example.org"]])
        #expect(Self.deliver(t, [r]) == [481: .sent])
        let m = try #require(server.messages.first)
        #expect(m.overTLS && m.authenticatedUser == "alerts")
        #expect(m.from == Self.from && m.recipients == ["oncall@example.com", "boss@example.org"])
        #expect(mailHeader(m.data, "Message-ID") == "<outbox-481.1764410520@hub.example>")
        #expect(mailHeader(m.data, "X-Pingtxt-Delivery") == "outbox-481")
        #expect(mailHeader(m.data, "Auto-Submitted") == "auto-generated")
        #expect(mailHeader(m.data, "From") == Self.from)
        #expect(decodedSubject(mailHeader(m.data, "Subject") ?? "") == down.title)
        let body = mailBody(m.data)
        #expect(body.contains("Monitor: API\r\nCause: HTTP 503\r\nFrom: hub\r\nSince: 2025-11-29T10:02:00Z"))
        #expect(body.contains("Sent by \"pingtxt\" (pingtxt monitoring hub), notification outbox-481."))
    }

    @Test func temporaryRefusalIsRetriedWithTheSameMessageID() throws {
        let server = try Self.server { $0.failure = (.endOfData, 451); $0.failureTimes = 1 }
        defer { server.stop() }
        let t = SMTPTransport(settings: Self.plain(server))
        defer { t.shutdown() }
        let r = try Self.row()
        guard case .temporary(let error, nil)? = Self.deliver(t, [r])[481] else {
            Issue.record("a 451 must be temporary")
            return
        }
        #expect(error.contains("451"))
        #expect(Self.deliver(t, [r]) == [481: .sent])
        let first = try #require(server.refused.first), second = try #require(server.messages.first)
        #expect(mailHeader(first.data, "Message-ID") == mailHeader(second.data, "Message-ID"))
        #expect(mailBody(first.data) == mailBody(second.data))
    }

    @Test func refusedRecipientIsPermanent() throws {
        let server = try Self.server { $0.failure = (.rcpt, 550) }
        defer { server.stop() }
        let t = SMTPTransport(settings: Self.plain(server))
        defer { t.shutdown() }
        guard case .permanent(let error)? = Self.deliver(t, [try Self.row()])[481] else {
            Issue.record("a 550 must be permanent")
            return
        }
        #expect(error.contains("550") && error.contains("oncall@example.com"))
    }

    @Test func authenticationFailureIsPermanentAndNamesNoPassword() throws {
        let server = try Self.server { $0.capabilities = ["AUTH PLAIN"]; $0.username = "alerts"; $0.password = "right" }
        defer { server.stop() }
        var s = Self.plain(server)
        (s.username, s.password) = ("alerts", "wrong-horse")
        let t = SMTPTransport(settings: s)
        defer { t.shutdown() }
        guard case .permanent(let error)? = Self.deliver(t, [try Self.row()])[481] else {
            Issue.record("a 535 must be permanent")
            return
        }
        #expect(error.contains("535") && !error.contains("wrong-horse"))
    }

    @Test func refusedPortIsTemporary() throws {
        let t = SMTPTransport(settings: SMTPSettings(host: "127.0.0.1", port: UInt16(closedPort()), security: .none,
                                                     from: Self.from, timeoutMillis: 2_000))
        defer { t.shutdown() }
        guard case .temporary(let error, _)? = Self.deliver(t, [try Self.row()])[481] else {
            Issue.record("a refused connection must be temporary")
            return
        }
        #expect(error.contains("cannot connect"))
        // A batch: every row rescheduled with the same reason.
        let verdicts = Self.deliver(t, try (1...9).map { try Self.row(id: $0) })
        #expect(verdicts.count == 9)
        #expect(verdicts.values.allSatisfy { $0 == .temporary(error: error, retryAfter: nil) })
    }

    @Test func notConfiguredIsPermanentAndSaysWhatToSet() throws {
        let t = SMTPTransport(settings: nil)
        defer { t.shutdown() }
        #expect(Self.deliver(t, [try Self.row()]) == [481: .permanent(error: "email is not configured: set [smtp] host")])
    }

    @Test func deliverReturnsAtOnceWhileASlowServerIsWaitedFor() throws {
        let server = try Self.server { $0.silent = true }
        defer { server.stop() }
        let t = SMTPTransport(settings: Self.plain(server, timeoutMillis: 700))
        defer { t.shutdown() }
        let got = Mutex<[Int64: AttemptVerdict]>([:])
        let done = Semaphore()
        let start = Time.monotonicNanos()
        t.deliver([try Self.row(id: 1), try Self.row(id: 2)]) { id, v in
            got.withLock { $0[id] = v }
            done.post()
        }
        #expect(Time.monotonicNanos() - start < 300_000_000, "sends run off the caller's thread")
        for _ in 0..<2 { _ = done.wait(timeoutNanos: 10_000_000_000) }
        let verdicts = got.withLock { $0 }
        #expect(verdicts.count == 2)
        for (_, v) in verdicts {
            guard case .temporary = v else { Issue.record("a timeout must be temporary, got \(v)"); continue }
        }
    }
}
