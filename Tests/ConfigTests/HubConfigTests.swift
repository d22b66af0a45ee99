#if canImport(Glibc)
import Glibc
#endif
import Testing
import Core
@testable import Config

private func issues(_ text: String?, env: [String: String] = [:]) -> [ConfigIssue] {
    do { _ = try HubConfig.load(text: text, environment: env); return [] } catch { return error.issues }
}

private func writeTemp(_ text: String) -> String {
    var template = Array("/tmp/pingtxt-config-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0)
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

@Suite struct HubConfigTests {
    /// `[status_pages] cache_seconds`: 0 turns the kept copies off, the
    /// range is 0–300 from the file and the environment alike.
    @Test func statusPageCacheSecondsIsRangeChecked() throws {
        #expect(try HubConfig.load(text: nil).statusPages.cacheSeconds == 10)
        #expect(try HubConfig.load(text: "[status_pages]\ncache_seconds = 0").statusPages.cacheSeconds == 0)
        #expect(try HubConfig.load(text: nil, environment: ["PINGTXT_STATUS_PAGES_CACHE_SECONDS": "300"])
            .statusPages.cacheSeconds == 300)
        #expect(issues("[status_pages]\ncache_seconds = 301").map(\.key) == ["status_pages.cache_seconds"])
        #expect(issues(nil, env: ["PINGTXT_STATUS_PAGES_CACHE_SECONDS": "-1"]).map(\.key) == ["status_pages.cache_seconds"])
        #expect(issues("[status_pages]\ncache_seconds = \"10\"").map(\.key) == ["status_pages.cache_seconds"])
    }

    @Test func defaultsWithNoFile() throws {
        let config = try HubConfig.load(path: nil, environment: [:])
        #expect(config == HubConfig())
        #expect(config.server.listen == ListenAddress(host: "127.0.0.1", port: 8080, family: .ipv4))
        #expect(config.server.listen.description == "127.0.0.1:8080")
        #expect(config.server.publicURL == "http://127.0.0.1:8080")
        #expect(config.server.trustedProxies.isEmpty)
        #expect(config.server.workers == 0 && config.server.blockingWorkers == 32 && config.server.eventLoops == 0 && config.server.maxConnections == 10_000)
        #expect(config.server.maxRequestLineBytes == 8192 && config.server.maxHeaderBytes == 16384 && config.server.maxBodyBytes == 1_048_576)
        #expect(config.server.headerTimeoutMs == 10_000 && config.server.idleTimeoutMs == 60_000 && config.server.shutdownTimeoutMs == 10_000)
        #expect(config.server.accessLog)
        #expect(config.database.path == "./data/pingtxt.db" && config.database.readers == 4 && config.database.busyTimeoutMs == 5000)
        #expect(config.log.level == .info && config.log.format == .text)
        #expect(!config.metrics.isPublic)
        #expect(config.hub.name == "pingtxt hub")
        #expect(config.oauthClients.isEmpty)
        #expect(config.effectiveEventLoops >= 1)
    }

    @Test func fileValues() throws {
        let path = writeTemp("""
        [server]
        listen = "[::1]:0"
        public_url = "https://status.example.com/"
        trusted_proxies = ["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"]
        workers = 4
        access_log = false
        [database]
        path = '/var/lib/pingtxt/hub.db'
        [log]
        level = "debug"
        format = "json"
        [metrics]
        public = true
        [hub]
        name = "Ops hub"
        [[oauth.clients]]
        id = "widget.v2"
        name = "Widget"
        redirect_uris = ["https://w.example.com/cb", "com.example.w:/cb"]
        """)
        defer { unlink(path) }
        let config = try HubConfig.load(path: path, environment: [:])
        #expect(config.server.listen == ListenAddress(host: "::1", port: 0, family: .ipv6))
        #expect(config.server.publicURL == "https://status.example.com")
        #expect(config.publicURLIsHTTPS)
        #expect(config.server.trustedProxies.map(\.description) == ["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"])
        #expect(config.server.workers == 4 && !config.server.accessLog)
        #expect(config.database.path == "/var/lib/pingtxt/hub.db")
        #expect(config.log.level == .debug && config.log.format == .json)
        #expect(config.metrics.isPublic && config.hub.name == "Ops hub")
        #expect(config.oauthClients == [OAuthClientConfig(id: "widget.v2", name: "Widget", redirectURIs: ["https://w.example.com/cb", "com.example.w:/cb"])])
    }

    @Test func missingFileIsAnError() {
        #expect(throws: ConfigError.self) { try HubConfig.load(path: "/nonexistent/pingtxt.toml", environment: [:]) }
        do { _ = try HubConfig.load(path: "/nonexistent/pingtxt.toml", environment: [:]) } catch {
            #expect(error.description == "/nonexistent/pingtxt.toml: config file not found")
        }
    }

    @Test func syntaxErrorStopsWithPosition() {
        let found = issues("[server]\nworkers = 2\nlisten 8080\nbogus = 1\n")
        #expect(found.count == 1)
        #expect(found.first?.description == "config.toml:3:8: expected '=' after key \"listen\", found '8'")
    }

    @Test func environmentWinsOverFile() throws {
        let env = [
            "PINGTXT_SERVER_LISTEN": "0.0.0.0:9000",
            "PINGTXT_SERVER_WORKERS": "32",
            "PINGTXT_SERVER_ACCESS_LOG": "0",
            "PINGTXT_SERVER_TRUSTED_PROXIES": " 127.0.0.1 , 192.168.0.0/16,",
            "PINGTXT_DATABASE_PATH": "/tmp/x.db",
            "PINGTXT_METRICS_PUBLIC": "TRUE",
            "PINGTXT_LOG_LEVEL": "warn",
            "PINGTXT_ADMIN_EMAIL": "admin@example.com",  // not a key: ignored
            "PINGTXT_ADMIN_PASSWORD": "secret",
            "PINGTXT_SERVER_NOPE": "1",
        ]
        let config = try HubConfig.load(text: "[server]\nlisten = \"127.0.0.1:1\"\nworkers = 2\n[database]\npath = \"file.db\"", environment: env)
        #expect(config.server.listen.description == "0.0.0.0:9000")
        #expect(config.server.workers == 32 && !config.server.accessLog)
        #expect(config.server.trustedProxies.map(\.description) == ["127.0.0.1", "192.168.0.0/16"])
        #expect(config.database.path == "/tmp/x.db")
        #expect(config.metrics.isPublic && config.log.level == .warn)
    }

    @Test func badEnvironmentValuesNameTheVariable() {
        let found = issues(nil, env: [
            "PINGTXT_SERVER_WORKERS": "many",
            "PINGTXT_SERVER_ACCESS_LOG": "yes",
            "PINGTXT_SERVER_LISTEN": "localhost",
            "PINGTXT_DATABASE_READERS": "0",
        ])
        let text = found.map(\.description)
        #expect(found.count == 4)
        #expect(text.contains("server.workers: PINGTXT_SERVER_WORKERS=\"many\": must be an integer"))
        #expect(text.contains("server.access_log: PINGTXT_SERVER_ACCESS_LOG=\"yes\": must be true, false, 1 or 0"))
        #expect(text.contains { $0.hasPrefix("server.listen: PINGTXT_SERVER_LISTEN=\"localhost\": \"localhost\": missing port") })
        #expect(text.contains("database.readers: PINGTXT_DATABASE_READERS=\"0\": must be between 1 and 64, got 0"))
        #expect(found.allSatisfy { $0.file == nil && $0.line == nil })
    }

    @Test func unknownKeysAndSectionsWithPosition() {
        let found = issues("[server]\nlisten = \"127.0.0.1:1\"\n  wokers = 3\n[databse]\npath = \"x\"\ntop = 1\n")
        #expect(found.map(\.description) == [
            "config.toml:3:3: server.wokers: unknown key; did you mean server.workers?",
            "config.toml:4:1: databse: unknown section [databse]; did you mean [database]?",
        ])
        let top = issues("top = 1\n[server]\n")
        #expect(top.map(\.description) == ["config.toml:1:1: top: unknown key (keys belong in a [section])"])
    }

    @Test func wrongTypes() {
        let found = issues("[server]\nworkers = \"8\"\naccess_log = 1\ntrusted_proxies = [1]\nlisten = 8080\n[log]\nlevel = \"loud\"\n[hub]\nname = []")
        #expect(found.map(\.description) == [
            "config.toml:2:1: server.workers: must be an integer, not a string",
            "config.toml:3:1: server.access_log: must be a boolean, not an integer",
            "config.toml:4:1: server.trusted_proxies: must be an array of strings, not an array",
            "config.toml:5:1: server.listen: must be a string, not an integer",
            "config.toml:7:1: log.level: must be one of debug, info, warn, error, got \"loud\"",
            "config.toml:9:1: hub.name: must be a string, not an array",
        ])
        #expect(issues("server = 1").first?.message == "must be a [server] table, not an integer")
    }

    @Test func collectsEveryIssue() {
        let found = issues("""
        [server]
        listen = "127.0.0.1:70000"
        public_url = "ftp://x"
        trusted_proxies = ["10.0.0.0/33", "nonsense"]
        workers = -1
        max_connections = -1
        [database]
        path = ""
        """, env: ["PINGTXT_SERVER_EVENT_LOOPS": "-1"])
        #expect(found.map(\.key) == ["server.listen", "server.public_url", "server.trusted_proxies", "server.workers",
                                     "server.max_connections", "database.path", "server.event_loops"])
        #expect(found.map(\.line) == [2, 3, 4, 5, 6, 8, nil])
        #expect(found[0].message.contains("port must be between 0 and 65535"))
        #expect(found[1].message.contains("must start with http:// or https://"))
        #expect(found[2].message.contains("prefix length must be between 0 and 32"))
        let error = ConfigError(issues: found)
        #expect(error.description.split(separator: "\n").count == 7)
    }

    @Test func publicURLValidation() throws {
        let ok = ["http://a": "http://a", "HTTPS://Status.example.com:8443/": "https://Status.example.com:8443",
                  "http://[::1]:8080": "http://[::1]:8080", "http://10.0.0.1": "http://10.0.0.1"]
        for (input, expected) in ok {
            #expect(try HubConfig.load(text: "[server]\npublic_url = \(TOMLValue.quote(input))").server.publicURL == expected)
        }
        for bad in ["http://", "https://x/hub", "http://x?a=1", "http://u@x", "x.example.com", "http://x:99999", "http://::1"] {
            #expect(issues("[server]\npublic_url = \(TOMLValue.quote(bad))").count == 1, "\(bad)")
        }
    }

    @Test func oauthClientsValidation() {
        let found = issues("""
        [[oauth.clients]]
        id = "bad id"
        name = "x"
        redirect_uris = ["no-scheme", "https://ok/cb#frag"]
        [[oauth.clients]]
        name = "Missing id"
        redirect_uris = []
        colour = "blue"
        [[oauth.clients]]
        id = "pingtxt-app"
        name = "x"
        redirect_uris = ["a:b"]
        [[oauth.clients]]
        id = "dup"
        name = "1"
        redirect_uris = ["a:b"]
        [[oauth.clients]]
        id = "dup"
        name = "2"
        redirect_uris = ["http:///x"]
        [oauth]
        other = 1
        """)
        #expect(found.map(\.description) == [
            "config.toml:22:1: oauth.other: unknown key",
            "config.toml:2:1: oauth.clients[0].id: must be 1-100 characters of A-Z a-z 0-9 . _ -, got \"bad id\"",
            "config.toml:4:1: oauth.clients[0].redirect_uris: \"no-scheme\" is not an absolute URI with a scheme",
            "config.toml:7:1: oauth.clients[1].redirect_uris: must list at least one redirect URI",
            "config.toml:8:1: oauth.clients[1].colour: unknown key",
            "config.toml:5:1: oauth.clients[1].id: is required",
            "config.toml:10:1: oauth.clients[2].id: \"pingtxt-app\" is the built-in client and cannot be redefined",
            "config.toml:18:1: oauth.clients[4].id: duplicate client id \"dup\" (also oauth.clients[3])",
            "config.toml:20:1: oauth.clients[4].redirect_uris: \"http:///x\" is missing a host",
        ])
        #expect(issues("[oauth]\nclients = [\"x\"]").first?.message.contains("[[oauth.clients]]") == true)
    }

    @Test func renderedDefaultsLoadBack() throws {
        var config = HubConfig()
        config.server.trustedProxies = [try IPNetwork(parsing: "10.1.2.3/8")]
        config.log.level = .error
        config.oauthClients = [OAuthClientConfig(id: "c", name: "C \"q\"", redirectURIs: ["x:/y"])]
        #expect(try HubConfig.load(text: config.renderTOML()) == config)
        #expect(config.server.trustedProxies.first?.description == "10.0.0.0/8")
    }

    @Test func exampleFileLoadsAndDocumentsEveryKey() throws {
        let here = #filePath
        let root = here.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
        let path = root + "/config.example.toml"
        let config = try HubConfig.load(path: path, environment: [:])
        #expect(config == HubConfig())
        let table = try TOMLParser.parse(try ConfigFile.read(path))
        for key in ConfigKeys.all {
            let value = table[key.section]?.tableValue?[key.name]
            #expect(value == key.defaultValue, "\(key.path) should be documented with its default")
        }
    }

    @Test func environmentVariableNames() {
        #expect(ConfigKeys.all.map(\.environmentVariable).contains("PINGTXT_SERVER_LISTEN"))
        #expect(ConfigKeys.all.map(\.environmentVariable).contains("PINGTXT_DATABASE_PATH"))
        #expect(Set(ConfigKeys.all.map(\.path)).count == ConfigKeys.all.count)
        #expect(!HubConfig.processEnvironment().isEmpty)
    }
}

@Suite struct SSOConfigTests {
    @Test func providersLoadWithDefaults() throws {
        let config = try HubConfig.load(text: """
        [[sso.providers]]
        id = "kc"
        name = "Keycloak"
        issuer = "https://sso.example.com/realms/main"
        client_id = "pingtxt"
        client_secret = "s3cret"
        allowed_domains = ["Example.com"]
        admin_emails = ["Boss@example.com"]

        [[sso.providers]]
        id = "dev"
        name = "Dev"
        issuer = "http://127.0.0.1:9999"
        client_id = "c"
        client_secret = "s"
        default_role = "admin"
        auto_create = true
        scopes = "openid email"
        admin_group_claim = "groups"
        admin_groups = ["Ops Admins"]
        """)
        #expect(config.ssoProviders.count == 2)
        let kc = config.ssoProviders[0]
        #expect(kc.scopes == "openid email profile" && kc.defaultRole == "readonly" && !kc.autoCreate)
        #expect(kc.allowedDomains == ["example.com"] && kc.adminEmails == ["boss@example.com"])
        #expect(config.ssoProviders[1].autoCreate && config.ssoProviders[1].defaultRole == "admin")
        #expect(config.ssoProviders[1].adminGroupClaim == "groups" && config.ssoProviders[1].adminGroups == ["Ops Admins"])
        #expect(try HubConfig.load(text: config.renderTOML()) == config)
    }

    @Test func invalidProvidersAreReportedWithoutTheSecret() {
        let text = """
        [[sso.providers]]
        id = "a"
        name = "A"
        issuer = "http://idp.example.com"
        client_id = "c"
        client_secret = "topsecret\\n"
        default_role = "owner"
        colour = "red"

        [[sso.providers]]
        id = "a"
        name = "B"
        issuer = "ftp://x"
        """
        do {
            _ = try HubConfig.load(text: text)
            Issue.record("should fail")
        } catch {
            let message = "\(error)"
            #expect(message.contains("sso.providers[0].issuer: must be https:// (http:// only to a loopback address)"))
            #expect(message.contains("sso.providers[0].client_secret: must be a non-empty single-line string"))
            #expect(message.contains("sso.providers[0].default_role: must be readonly or admin"))
            #expect(message.contains("sso.providers[0].colour: unknown key"))
            #expect(message.contains("sso.providers[1].issuer: must be an https:// URL"))
            #expect(message.contains("sso.providers[1].client_id: is required"))
            #expect(!message.contains("topsecret"))
        }
    }

    @Test func loopbackHTTPIssuers() throws {
        for ok in ["http://127.0.0.1:8080", "http://localhost/realms/x", "http://[::1]:9000", "https://idp.example.com/"] {
            #expect(throws: Never.self) { try SSOProviderConfig.issuerURL(ok) }
        }
        for bad in ["http://10.0.0.1", "http://127.0.0.1.evil.com", "https://", "https://x/?a=b"] {
            #expect(throws: InvalidValue.self) { try SSOProviderConfig.issuerURL(bad) }
        }
    }

    /// config.example.toml documents every provider key in its commented block.
    @Test func exampleDocumentsEveryProviderKey() throws {
        let root = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
        let text = try ConfigFile.read(root + "/config.example.toml")
        #expect(text.contains("# [[sso.providers]]"))
        for key in SSOProviderConfig.keys {
            #expect(text.contains("\n# \(key) = "), "sso.providers.\(key) is not documented")
        }
    }
}
