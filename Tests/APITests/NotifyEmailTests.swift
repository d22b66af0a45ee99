import Core
import Mail
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Email alerts through the running binary to a fake SMTP server on
/// loopback (STARTTLS with a throwaway CA, AUTH), configured the way an
/// admin would: PINGTXT_SMTP_* environment variables.
@Suite struct NotifyEmailTests {
    static let password = "mail-pässword-42"

    func waitUntil(_ what: String, timeoutMillis: Int = 15_000, _ done: () -> Bool) {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
            usleep(50_000)
        }
    }

    /// A header's value (folded lines joined).
    func header(_ data: String, _ name: String) -> String? {
        let head = data.firstRange(of: "\r\n\r\n").map { String(data[..<$0.lowerBound]) } ?? data
        var value: String?
        for line in head.split(separator: "\r\n") {
            if let v = value, line.hasPrefix(" ") { value = v + line; continue }
            if value != nil { break }
            if line.lowercased().hasPrefix(name.lowercased() + ": ") { value = String(line.dropFirst(name.count + 2)) }
        }
        return value
    }

    /// The Subject with its RFC 2047 words decoded.
    func subject(_ data: String) -> String {
        let raw = header(data, "Subject") ?? ""
        let words = raw.split(separator: " ")
        guard words.allSatisfy({ $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") }) else { return raw }
        return String(decoding: words.flatMap { decodeBase64(String($0.dropFirst(10).dropLast(2))) }, as: UTF8.self)
    }

    func body(_ data: String) -> String {
        let text = data.firstRange(of: "\r\n\r\n").map { String(data[$0.upperBound...]) } ?? ""
        return String(decoding: QuotedPrintable.decode(text), as: UTF8.self)
    }

    @Test func testMessageThenADownAlertArriveByMail() throws {
        let fx = try #require(TLSFixture(), "openssl CLI could not make the test certificates")
        var config = FakeSMTPServer.Config()
        (config.cert, config.key, config.username, config.password) = (fx.cert("valid"), fx.key("valid"), "alerts", Self.password)
        let smtp = try #require(FakeSMTPServer(config))
        defer { smtp.stop() }
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(environment: [
            "PINGTXT_SMTP_HOST": "127.0.0.1", "PINGTXT_SMTP_PORT": "\(smtp.port)", "PINGTXT_SMTP_SECURITY": "starttls",
            "PINGTXT_SMTP_USERNAME": "alerts", "PINGTXT_SMTP_PASSWORD": Self.password,
            "PINGTXT_SMTP_FROM": "pingtxt@hub.example", "PINGTXT_SMTP_HELO_NAME": "hub.example",
            "PINGTXT_CHECKS_CA_FILE": fx.caFile, "PINGTXT_HUB_NAME": "Acme hub",
        ])
        let channel = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "on-call mail", "type": "email", "events": ["monitor_down", "monitor_up"],
            "config": ["to": ["oncall@example.com", "boss@example.org"]],
        ]), 201)
        let channelID = try #require(channel["id"]?.intValue)

        // The test notification.
        let test = try expectJSON(try hub.call("POST", "/api/channels/\(channelID)/test"), 200)
        #expect(test["queued"] == true)
        let outboxID = try #require(test["outbox_id"]?.intValue)
        waitUntil("the test mail") { smtp.messages.count == 1 }
        let first = try #require(smtp.messages.first)
        #expect(first.overTLS && first.authenticatedUser == "alerts")
        #expect(first.from == "pingtxt@hub.example" && first.recipients == ["oncall@example.com", "boss@example.org"])
        #expect(header(first.data, "From") == "pingtxt@hub.example")
        #expect(header(first.data, "To") == "oncall@example.com, boss@example.org")
        #expect(subject(first.data) == "🔔 Test notification from Acme hub")
        let messageID = header(first.data, "Message-ID") ?? ""
        #expect(messageID.hasPrefix("<outbox-\(outboxID).") && messageID.hasSuffix("@hub.example>"), "\(messageID)")
        #expect(header(first.data, "X-Pingtxt-Delivery") == "outbox-\(outboxID)")
        #expect(body(first.data).contains("channel \"on-call mail\""))
        #expect(smtp.commands.first == "EHLO hub.example")

        // A monitor goes down: the mail names it and the cause.
        let (id, _) = try hub.createChecked(httpMonitor("Checkout API", target.healthURL))
        target.setStatus(503)
        try hub.check(id)
        waitUntil("the down alert") { smtp.messages.count == 2 }
        let alert = try #require(smtp.messages.last)
        #expect(subject(alert.data).hasPrefix("🔴 Checkout API is down — HTTP 503 from hub, since "))
        let text = body(alert.data)
        #expect(text.contains("Monitor: Checkout API\r\nCause: HTTP 503\r\nFrom: hub\r\nSince: "), "\(text)")
        #expect(text.contains("Sent by \"Acme hub\" (pingtxt monitoring hub)"))
        #expect(header(alert.data, "Message-ID") != header(first.data, "Message-ID"))

        let shown = try hub.waitFor("delivery counts", { $0["delivery"]?["sent"] == 2 }) {
            try expectJSON(try hub.call("GET", "/api/channels/\(channelID)"))
        }
        #expect(shown["delivery"]?["failed"] == 0 && shown["delivery"]?["pending"] == 0)
        #expect(!hub.hub.log.contains(Self.password), "the SMTP password is never logged")
    }

    @Test func implicitTLSWithAuthLogin() throws {
        let fx = try #require(TLSFixture(), "openssl CLI could not make the test certificates")
        var config = FakeSMTPServer.Config()
        (config.cert, config.key, config.implicitTLS) = (fx.cert("valid"), fx.key("valid"), true)
        (config.capabilities, config.username, config.password) = (["AUTH LOGIN"], "alerts", Self.password)
        let smtp = try #require(FakeSMTPServer(config))
        defer { smtp.stop() }
        let hub = try MonitoringHub(environment: [
            "PINGTXT_SMTP_HOST": "127.0.0.1", "PINGTXT_SMTP_PORT": "\(smtp.port)", "PINGTXT_SMTP_SECURITY": "tls",
            "PINGTXT_SMTP_USERNAME": "alerts", "PINGTXT_SMTP_PASSWORD": Self.password,
            "PINGTXT_SMTP_FROM": "pingtxt@hub.example", "PINGTXT_CHECKS_CA_FILE": fx.caFile,
        ])
        let body: JSON = ["name": "mail", "type": "email", "config": ["to": "oncall@example.com"]]
        let id = try #require(try expectJSON(try hub.call("POST", "/api/channels", json: body), 201)["id"]?.intValue)
        _ = try expectJSON(try hub.call("POST", "/api/channels/\(id)/test"), 200)
        waitUntil("the test mail over implicit TLS") { smtp.messages.count == 1 }
        #expect(smtp.messages.first?.overTLS == true && smtp.messages.first?.authenticatedUser == "alerts")
        #expect(smtp.commands.contains("AUTH LOGIN") && !smtp.commands.contains("STARTTLS"))
        // No helo_name: the machine's host name (or localhost), never empty.
        let ehlo = smtp.commands.first ?? ""
        #expect(ehlo.hasPrefix("EHLO ") && ehlo.count > 5)
    }

    @Test func temporaryRefusalIsRetriedWithTheSameMessageID() throws {
        var config = FakeSMTPServer.Config()
        (config.capabilities, config.failure, config.failureTimes) = (["8BITMIME"], (.endOfData, 451), 1)
        let smtp = try #require(FakeSMTPServer(config))
        defer { smtp.stop() }
        let hub = try MonitoringHub(environment: [
            "PINGTXT_SMTP_HOST": "127.0.0.1", "PINGTXT_SMTP_PORT": "\(smtp.port)", "PINGTXT_SMTP_SECURITY": "none",
            "PINGTXT_SMTP_FROM": "pingtxt@hub.example",
        ])
        let channel: JSON = ["name": "mail", "type": "email", "config": ["to": "oncall@example.com"]]
        let id = try #require(try expectJSON(try hub.call("POST", "/api/channels", json: channel), 201)["id"]?.intValue)
        _ = try expectJSON(try hub.call("POST", "/api/channels/\(id)/test"), 200)
        waitUntil("the refused first attempt") { smtp.refused.count == 1 }
        let pending = try hub.waitFor("the retry to be scheduled", { $0["delivery"]?["pending"] == 1 }) {
            try expectJSON(try hub.call("GET", "/api/channels/\(id)"))
        }
        #expect(pending["delivery"]?["last_error"]?.stringValue?.contains("451") == true)
        // The outbox backoff: the first retry comes 5-10 s later.
        waitUntil("the retry", timeoutMillis: 30_000) { smtp.messages.count == 1 }
        let refused = try #require(smtp.refused.first), sent = try #require(smtp.messages.first)
        #expect(header(sent.data, "Message-ID") != nil && header(sent.data, "Message-ID") == header(refused.data, "Message-ID"))
        #expect(body(sent.data) == body(refused.data))
        _ = try hub.waitFor("sent", { $0["delivery"]?["sent"] == 1 && $0["delivery"]?["pending"] == 0 }) {
            try expectJSON(try hub.call("GET", "/api/channels/\(id)"))
        }
    }

    @Test func refusedRecipientFailsVisiblyAndUnconfiguredHubSaysSo() throws {
        var config = FakeSMTPServer.Config()
        (config.capabilities, config.failure) = (["8BITMIME"], (.rcpt, 550))
        let smtp = try #require(FakeSMTPServer(config))
        defer { smtp.stop() }
        let hub = try MonitoringHub(environment: [
            "PINGTXT_SMTP_HOST": "127.0.0.1", "PINGTXT_SMTP_PORT": "\(smtp.port)", "PINGTXT_SMTP_SECURITY": "none",
            "PINGTXT_SMTP_FROM": "pingtxt@hub.example",
        ])
        func lastError(_ hub: MonitoringHub, _ channelID: Int64) throws -> JSON {
            let shown = try hub.waitFor("a failed delivery", { $0["delivery"]?["failed"] == 1 }) {
                try expectJSON(try hub.call("GET", "/api/channels/\(channelID)"))
            }
            return shown["delivery"]?["last_error"] ?? .null
        }
        let body: JSON = ["name": "mail", "type": "email", "config": ["to": "nobody@example.com"]]
        let id = try #require(try expectJSON(try hub.call("POST", "/api/channels", json: body), 201)["id"]?.intValue)
        _ = try expectJSON(try hub.call("POST", "/api/channels/\(id)/test"), 200)
        let refused = try lastError(hub, id).stringValue ?? ""
        #expect(refused.contains("550") && refused.contains("nobody@example.com"), "\(refused)")

        // Without [smtp] host: stored, queued, and failed with a message that says what to set.
        let bare = try MonitoringHub()
        let other = try #require(try expectJSON(try bare.call("POST", "/api/channels", json: body), 201)["id"]?.intValue)
        _ = try expectJSON(try bare.call("POST", "/api/channels/\(other)/test"), 200)
        #expect(try lastError(bare, other) == "email is not configured: set [smtp] host")
    }

    @Test func checkConfigExplainsAnIncompleteSMTPSection() throws {
        let sandbox = try Sandbox()
        let out = try sandbox.cli(["check-config"], environment: ["PINGTXT_SMTP_HOST": "smtp.example.com",
                                                                  "PINGTXT_SMTP_PASSWORD": Self.password])
        #expect(out.status != .exited(0))
        #expect(out.stderr.contains("smtp.from: is required when smtp.host is set"))
        #expect(out.stderr.contains("smtp.username: is required when smtp.password is set"))
        #expect(!out.stderr.contains(Self.password))
    }
}
