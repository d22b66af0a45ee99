#if canImport(Glibc)
import Glibc
#endif
import Core

/// The hub's configuration: defaults, overridden by the TOML file, overridden
/// by `PINGTXT_<SECTION>_<KEY>` environment variables. The keys, their types,
/// validation and documentation live in one table, `ConfigKeys.all`; the
/// defaults are the initial values below.
public struct HubConfig: Sendable, Equatable {
    /// `[server]`: the HTTP server.
    public struct Server: Sendable, Equatable {
        public var listen = ListenAddress(host: "127.0.0.1", port: 8080, family: .ipv4)
        /// Scheme and authority, no trailing slash: `https://status.example.com`.
        public var publicURL = "http://127.0.0.1:8080"
        public var trustedProxies: [IPNetwork] = []
        /// 0 = one per core; see `HubConfig.effectiveEventLoops`.
        public var eventLoops = 0
        public var workers = 0
        public var blockingWorkers = 32
        public var maxConnections = 10_000
        public var maxRequestLineBytes = 8192
        public var maxHeaderBytes = 16_384
        public var maxBodyBytes = 1_048_576
        public var headerTimeoutMs = 10_000
        public var idleTimeoutMs = 60_000
        public var shutdownTimeoutMs = 10_000
        public var accessLog = true
        public init() {}
    }

    /// `[database]`: a SQLite file (`path`, the default) or `url` (SQLite
    /// or PostgreSQL, SPEC §14).
    public struct Database: Sendable, Equatable {
        public var path = "./data/pingtxt.db"
        public var url: DatabaseURL?
        public var readers = 4
        public var busyTimeoutMs = 5000
        public init() {}

        /// Where the database is: `url` when set, else the SQLite `path`.
        public var location: DatabaseURL { url ?? DatabaseURL(sqlitePath: path) }
    }

    /// `[log]`
    public struct Logging: Sendable, Equatable {
        public var level: Log.Level = .info
        public var format: Log.Format = .text
        public init() {}
    }

    /// `[metrics]`
    public struct Metrics: Sendable, Equatable {
        /// `metrics.public`: serve `/metrics` without a token.
        public var isPublic = false
        public init() {}
    }

    /// `[checks]`: the hub as a check location.
    public struct Checks: Sendable, Equatable {
        public var location = "hub"
        public var maxConcurrent = 2048
        public var caFile = ""
        /// Local address checks connect from; empty = the kernel's choice.
        public var sourceAddress = ""
        public init() {}
    }

    /// `[retention]`: how long check history is kept.
    public struct Retention: Sendable, Equatable {
        public var rawDays = 7
        public var hourlyDays = 100
        public var dailyDays = 800
        public var rawSampleMinutes = 10
        public init() {}
    }

    /// `[agent]`: `pingtxt agent` (a remote check location). Empty = not set;
    /// the command line overrides these.
    public struct Agent: Sendable, Equatable {
        public var hub = ""
        public var token = ""
        public var name = ""
        public init() {}
    }

    /// `[agents]`: remote check agents.
    public struct AgentsSection: Sendable, Equatable {
        public var pollInterval = 10
        public init() {}
    }

    /// `[hub]`
    public struct Hub: Sendable, Equatable {
        public var name = "pingtxt hub"
        public init() {}
    }

    /// `[auth]`: sign-in options.
    public struct AuthSection: Sendable, Equatable {
        /// Offer approving a web sign-in on the phone instead of typing the TOTP code (SPEC §11).
        public var phoneApproval = true
        public init() {}
    }

    /// `[mobile]`: phones enrolled through the app.
    public struct Mobile: Sendable, Equatable {
        /// Enrolling one more phone removes the user's least recently seen one (SPEC §10).
        public var maxDevicesPerUser = 10
        public init() {}
    }

    /// `[status_pages]`: the public status pages.
    public struct StatusPages: Sendable, Equatable {
        /// Seconds a built page is served before it is built again (docs/web.md).
        public var cacheSeconds = 10
        public init() {}
    }

    /// `[smtp]`: the mail server `email` channels send through. An empty
    /// `host` means email is not configured (email channels then fail with
    /// a message saying so).
    public struct SMTP: Sendable, Equatable {
        public enum Security: Sendable, Equatable { case startTLS, tls, none }
        public var host = ""
        public var port = 587
        public var security: Security = .startTLS
        public var username = ""
        /// Never logged; write-only like every secret.
        public var password = ""
        public var from = ""
        /// "" = this machine's host name.
        public var heloName = ""
        public var timeoutSeconds = 30
        public init() {}

        public var isConfigured: Bool { !host.isEmpty }
    }

    public var server = Server()
    public var database = Database()
    public var log = Logging()
    public var metrics = Metrics()
    public var checks = Checks()
    public var retention = Retention()
    public var hub = Hub()
    public var auth = AuthSection()
    public var mobile = Mobile()
    public var statusPages = StatusPages()
    public var smtp = SMTP()
    public var agent = Agent()
    public var agents = AgentsSection()
    /// `[[oauth.clients]]`: extra public OAuth clients besides the built-in app.
    public var oauthClients: [OAuthClientConfig] = []
    /// `[[sso.providers]]`: OpenID Connect providers for single sign-on.
    public var ssoProviders: [SSOProviderConfig] = []

    /// The defaults.
    public init() {}

    /// `server.event_loops`, with 0 resolved to the number of online cores.
    public var effectiveEventLoops: Int {
        if server.eventLoops > 0 { return server.eventLoops }
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// `server.workers`, with 0 resolved to two per online core: more threads
    /// than that only add wake-ups and context switches (measured in bench/).
    public var effectiveWorkers: Int {
        server.workers > 0 ? server.workers : 2 * effectiveEventLoopsForCores
    }

    private var effectiveEventLoopsForCores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Whether `server.public_url` is https (session cookies get `Secure`).
    public var publicURLIsHTTPS: Bool { server.publicURL.hasPrefix("https://") }

    /// Loads the configuration: defaults, then the TOML file at `path` (if
    /// any; a missing file is an error), then environment overrides. Collects
    /// every issue it can before throwing; a TOML syntax error stops at once.
    public static func load(path: String?, environment: [String: String]) throws(ConfigError) -> HubConfig {
        guard let path else { return try load(text: nil, file: nil, environment: environment) }
        let text: String
        do {
            text = try ConfigFile.read(path)
        } catch {
            throw ConfigError(ConfigIssue(file: path, key: "", message: error.message))
        }
        return try load(text: text, file: path, environment: environment)
    }

    /// Like `load(path:environment:)` with the file's text given directly;
    /// `file` is only used in messages.
    public static func load(text: String?, file: String? = "config.toml", environment: [String: String] = [:]) throws(ConfigError) -> HubConfig {
        var loader = ConfigLoader(file: file)
        if let text {
            let root: TOMLTable
            do {
                root = try TOMLParser.parse(text)
            } catch {
                throw ConfigError(ConfigIssue(file: file, at: error.position, key: "", message: error.message))
            }
            loader.apply(root)
        }
        loader.applyEnvironment(environment)
        loader.checkCombinations()
        guard loader.issues.isEmpty else { throw ConfigError(issues: loader.issues) }
        return loader.config
    }

    /// The process environment, read from `environ`.
    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var entry = start else { return result }
        while let cString = entry.pointee {
            let pair = String(cString: cString)
            if let eq = pair.firstIndex(of: "=") {
                result[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            entry += 1
        }
        return result
    }

    /// This configuration as a TOML document with every key, commented with
    /// each key's documentation and environment variable.
    public func renderTOML() -> String {
        var out = ""
        var section = ""
        for key in ConfigKeys.all {
            if key.section != section {
                section = key.section
                out += (out.isEmpty ? "" : "\n") + "[\(section)]\n"
            }
            for line in key.doc.split(separator: "\n", omittingEmptySubsequences: false) { out += "# \(line)\n" }
            out += "# env: \(key.environmentVariable)\n"
            out += "\(key.name) = \(key.read(self))\n"
        }
        for client in oauthClients {
            out += "\n[[oauth.clients]]\nid = \(TOMLValue.quote(client.id))\nname = \(TOMLValue.quote(client.name))\n"
            out += "redirect_uris = \(TOMLValue.array(client.redirectURIs.map { .string($0) }))\n"
        }
        return out + renderSSO()
    }
}

/// One `[[oauth.clients]]` entry: a public client (no secret, PKCE required).
public struct OAuthClientConfig: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Exact redirect URIs, each absolute with a scheme.
    public var redirectURIs: [String]

    public init(id: String, name: String, redirectURIs: [String]) {
        self.id = id
        self.name = name
        self.redirectURIs = redirectURIs
    }
}

/// Reads the config file with plain syscalls.
enum ConfigFile {
    static func read(_ path: String) throws(InvalidValue) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { throw InvalidValue("config file not found") }
            throw InvalidValue("cannot open config file: \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw InvalidValue("cannot read config file: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes += buffer[0..<n]
            if bytes.count > 16 << 20 { throw InvalidValue("config file is larger than 16 MiB") }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw InvalidValue("config file is not valid UTF-8") }
        return text
    }
}
