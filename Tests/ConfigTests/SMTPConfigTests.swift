import Testing
@testable import Config

private func issues(_ text: String?, env: [String: String] = [:]) -> [String] {
    do { _ = try HubConfig.load(text: text, environment: env); return [] } catch { return error.issues.map(\.description) }
}

/// `[smtp]`: the mail server of email channels.
@Suite struct SMTPConfigTests {
    @Test func defaultsMeanNotConfigured() throws {
        let s = try HubConfig.load(text: nil).smtp
        #expect(!s.isConfigured && s.host.isEmpty)
        #expect(s.port == 587 && s.security == .startTLS && s.timeoutSeconds == 30)
        #expect(s.username.isEmpty && s.password.isEmpty && s.from.isEmpty && s.heloName.isEmpty)
    }

    @Test func fileAndEnvironment() throws {
        let c = try HubConfig.load(text: """
        [smtp]
        host = "smtp.example.com"
        port = 465
        security = "tls"
        username = "alerts"
        from = "pingtxt@example.com"
        helo_name = "hub.example.com"
        timeout_seconds = 10
        """, environment: ["PINGTXT_SMTP_PASSWORD": "s3cret pass", "PINGTXT_SMTP_PORT": "2465"])
        #expect(c.smtp.host == "smtp.example.com" && c.smtp.port == 2465 && c.smtp.security == .tls)
        #expect(c.smtp.username == "alerts" && c.smtp.password == "s3cret pass" && c.smtp.from == "pingtxt@example.com")
        #expect(c.smtp.heloName == "hub.example.com" && c.smtp.timeoutSeconds == 10 && c.smtp.isConfigured)
    }

    @Test func invalidValuesAreExplained() {
        #expect(issues("[smtp]\nsecurity = \"ssl\"") == [
            "config.toml:2:1: smtp.security: must be one of starttls, tls, none, got \"ssl\""])
        #expect(issues("[smtp]\nport = 0") == ["config.toml:2:1: smtp.port: must be between 1 and 65535, got 0"])
        #expect(issues("[smtp]\nhost = \"smtp://mail.example.com\"\nfrom = \"a@b.c\"").first?
            .contains("smtp.host: must be a host name or IP address") == true)
        #expect(issues("[smtp]\nfrom = \"Pingtxt <a@b.c>\"").first?.contains("smtp.from: must be a plain address") == true)
        #expect(issues("[smtp]\nhelo_name = \"my hub\"").first?.contains("smtp.helo_name: must be a host name") == true)
        #expect(issues("[smtp]\ntimeout_seconds = 0").first?.contains("smtp.timeout_seconds: must be between 1 and 600") == true)
        #expect(issues("[smtp]\nsecurty = \"tls\"") == ["config.toml:2:1: smtp.securty: unknown key; did you mean smtp.security?"])
    }

    @Test func combinations() {
        #expect(issues("[smtp]\nhost = \"mail.example.com\"") == [
            "smtp.from: is required when smtp.host is set (the sender address of alert mails)"])
        #expect(issues("[smtp]\nhost = \"mail.example.com\"\nfrom = \"a@b.c\"\nsecurity = \"none\"").first?
            .contains("smtp.security: none (no encryption) is only allowed with a loopback host") == true)
        #expect(issues("[smtp]\nhost = \"127.0.0.1\"\nfrom = \"a@b.c\"\nsecurity = \"none\"").isEmpty)
        #expect(issues("[smtp]\nusername = \"u\"") == ["smtp.password: is required when smtp.username is set"])
        #expect(issues(nil, env: ["PINGTXT_SMTP_PASSWORD": "p"]) == ["smtp.username: is required when smtp.password is set"])
    }

    @Test func passwordNeverAppearsInMessages() {
        let found = issues(nil, env: ["PINGTXT_SMTP_USERNAME": "u", "PINGTXT_SMTP_PASSWORD": "hunter2\nBcc: x"])
        #expect(found == ["smtp.password: PINGTXT_SMTP_PASSWORD=********: must not contain control characters",
                          "smtp.password: is required when smtp.username is set"])
        #expect(!found.joined().contains("hunter2"))
        #expect(ConfigKeys.all.filter(\.isSecret).map(\.path) == ["database.url", "smtp.password", "agent.token"])
    }
}
