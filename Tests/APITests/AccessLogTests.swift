import Core
import Testing

/// The access log and log formats, as written by the binary on stderr.
@Suite struct AccessLogTests {
    /// Access-log lines (text format) for `path`.
    func requestLines(_ hub: HubProcess, path: String) -> [String] {
        hub.logLines.filter { $0.contains(" request ") && $0.contains(" path=\(path) ") }
    }

    /// `key=value` from a text log line.
    func field(_ line: String, _ key: String) -> String? {
        line.split(separator: " ").first { $0.hasPrefix("\(key)=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    @Test func oneLinePerRequestWithMethodPathStatusBytesDuration() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let me = try hub.call("GET", "/api/me", token: token)
        _ = try hub.call("DELETE", "/api/me", token: token)
        _ = try hub.call("GET", "/api/unknown-path")
        #expect(hub.waitForLog { $0.contains("path=/api/unknown-path") })

        let meLines = requestLines(hub, path: "/api/me")
        #expect(meLines.count == 2, "\(meLines)")
        let get = try #require(meLines.first { field($0, "method") == "GET" })
        #expect(field(get, "status") == "200")
        #expect(field(get, "bytes") == String(me.body.count))
        #expect(Double(field(get, "ms") ?? "") != nil, "\(get)")
        #expect(field(get, "client") == "127.0.0.1")
        #expect(meLines.contains { field($0, "method") == "DELETE" && field($0, "status") == "405" })
        let unknown = requestLines(hub, path: "/api/unknown-path")
        #expect(unknown.count == 1 && field(unknown[0], "status") == "404", "\(unknown)")
        // The query string is not logged.
        _ = try hub.call("GET", "/api/me?secret=hunter2", token: token)
        #expect(hub.waitForLog { $0.contains("path=/api/me") && $0.contains("status=200") && $0 != get })
        #expect(!hub.log.contains("hunter2"))
    }

    /// A ping URL's key is a credential: the line names the route instead.
    @Test func aPingKeyIsLoggedAsItsRoute() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let created = try hub.call("POST", "/api/monitors", token: token, json: [
            "name": "backup", "type": "heartbeat", "heartbeat": ["period": 60, "grace": 60],
        ])
        #expect(created.status == 201)
        let url = try #require(try created.json()["ping_url"]?.stringValue)
        let key = try #require(url.split(separator: "/").last.map(String.init))
        #expect(try hub.call("GET", "/ping/\(key)").status == 200)
        #expect(try hub.call("POST", "/ping/\(key)/fail").status == 200)
        #expect(hub.waitForLog { $0.contains("path=/ping/{key}/{suffix}") })
        #expect(requestLines(hub, path: "/ping/{key}").count == 1)
        #expect(!hub.log.contains(key))
    }

    @Test func jsonLogFormatWritesOneJSONObjectPerLine() throws {
        let hub = try HubProcess(arguments: ["--log-format", "json"])
        let token = try hub.token()
        _ = try hub.call("GET", "/api/me", token: token)
        _ = try hub.call("POST", "/api/users", token: token, json: ["email": "bad"])
        #expect(hub.stop() == .exited(0))

        let lines = hub.logLines
        #expect(lines.count >= 5)
        var requests: [JSON] = []
        for line in lines {
            guard let json = try? JSON.parse(line) else {
                Issue.record("not JSON: \(line)")
                continue
            }
            #expect(json["msg"]?.stringValue != nil && json["level"]?.stringValue != nil && json["ts"]?.stringValue != nil)
            if json["msg"]?.stringValue == "request" { requests.append(json) }
        }
        let me = try #require(requests.first { $0["path"]?.stringValue == "/api/me" })
        #expect(me["method"]?.stringValue == "GET")
        #expect(me["status"]?.stringValue == "200")
        #expect(me["bytes"] != nil && me["ms"] != nil && me["client"] != nil)
        #expect(requests.contains { $0["path"]?.stringValue == "/api/users" && $0["status"]?.stringValue == "400" })
        #expect(lines.contains { (try? JSON.parse($0))?["msg"]?.stringValue == "stopped" })
    }

    @Test func tokensNeverAppearInTheLog() throws {
        let hub = try HubProcess()
        let cliToken = try hub.token()
        let created = try expectJSON(try hub.call("POST", "/api/tokens", token: cliToken, json: ["name": "api", "scope": "write"]), 201)
        let apiToken = try #require(created["token"]?.stringValue)
        let unknown = "pmk_" + String(repeating: "Z", count: 43)
        _ = try hub.call("GET", "/api/me", token: apiToken)
        _ = try hub.call("GET", "/api/me", token: unknown)
        _ = try hub.call("GET", "/api/me?access_token=\(apiToken)")
        _ = try hub.call("GET", "/metrics", token: cliToken)
        _ = try hub.call("DELETE", "/api/tokens/\(created["id"]?.intValue ?? 0)", token: cliToken)
        _ = try hub.call("GET", "/api/me", token: apiToken)
        #expect(hub.waitForLog { $0.contains("api token revoked") })
        #expect(hub.stop() == .exited(0))
        let log = hub.log
        for secret in [cliToken, apiToken, unknown, String(apiToken.dropFirst(4)), HubProcess.adminPassword] {
            #expect(!log.contains(secret), "the log contains \(secret.prefix(8))…")
        }
    }

    @Test func forwardedForIsIgnoredFromUntrustedPeers() throws {
        let hub = try HubProcess()
        _ = try hub.call("GET", "/api/xff-untrusted", headers: [("X-Forwarded-For", "203.0.113.7")])
        #expect(hub.waitForLog { $0.contains("path=/api/xff-untrusted") })
        let line = try #require(requestLines(hub, path: "/api/xff-untrusted").first)
        #expect(field(line, "client") == "127.0.0.1", "\(line)")
        #expect(!hub.log.contains("203.0.113.7"))
    }

    @Test func forwardedForIsHonouredFromTrustedProxies() throws {
        let hub = try HubProcess(environment: ["PINGTXT_SERVER_TRUSTED_PROXIES": "127.0.0.1"])
        _ = try hub.call("GET", "/api/xff-trusted", headers: [("X-Forwarded-For", "203.0.113.7")])
        #expect(hub.waitForLog { $0.contains("path=/api/xff-trusted") })
        let line = try #require(requestLines(hub, path: "/api/xff-trusted").first)
        #expect(field(line, "client") == "203.0.113.7", "\(line)")
    }

    /// A value a client chose (here an SSO provider's `error` parameter,
    /// percent-decoded) holding CR, LF and tabs cannot forge a log line: the
    /// text format quotes and escapes it, the JSON format keeps it one string.
    @Test func controlCharactersInLoggedValuesCannotForgeALine() throws {
        let forged = "2026-01-01T00:00:00Z\tERROR\tforged\tadmin:granted"
        let query = "/login/sso/fake/callback?error=denied%0D%0A2026-01-01T00:00:00Z%09ERROR%09forged%09admin%3Agranted%1B%5B31m"
        for format in ["text", "json"] {
            let sso = try SSOHarness(logFormat: format)
            let r = try Browser(sso.hub).get(query)
            #expect(r.status == 403)
            #expect(sso.hub.waitForLog { $0.contains("sign-in refused") })
            #expect(sso.hub.stop() == .exited(0))
            let lines = sso.hub.logLines
            // Split on the LF byte: Swift's "\r\n" is one Character that a split on "\n" would not see.
            let raw = sso.hub.log.utf8.split(separator: 10)
            #expect(!raw.contains { $0.starts(with: "2026-01-01T00:00:00Z".utf8) }, "\(lines)")
            #expect(!sso.hub.log.contains("\u{1B}"), "a raw escape sequence reached the log")
            let refused = try #require(lines.first { $0.contains("sign-in refused") })
            if format == "text" {
                #expect(refused.contains(#"detail="denied\r\n2026-01-01T00:00:00Z\tERROR\tforged\tadmin:granted\u001b[31m""#), "\(refused)")
            } else {
                let json = try JSON.parse(refused)
                #expect(json["detail"]?.stringValue == "denied\r\n" + forged + "\u{1B}[31m", "\(refused)")
            }
        }
    }
}
