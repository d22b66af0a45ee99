import Core

/// Describes one configuration key: where it lives, its TOML type, how it is
/// validated and stored, and its documentation. The table `ConfigKeys.all`
/// drives file loading, environment overrides and `renderTOML()`.
public struct ConfigKey: Sendable {
    public enum Kind: String, Sendable {
        case string, integer, boolean
        case stringArray = "array of strings"
    }

    public let section: String
    public let name: String
    public let kind: Kind
    public let doc: String
    /// Write-only (a password): its value never appears in messages.
    public private(set) var isSecret = false
    /// The key's current value in a config, as TOML.
    let read: @Sendable (HubConfig) -> TOMLValue
    /// Validates a value (already of the right kind) and stores it.
    let write: @Sendable (TOMLValue, inout HubConfig) throws(InvalidValue) -> Void

    /// `server.listen`
    public var path: String { "\(section).\(name)" }
    /// `PINGTXT_SERVER_LISTEN`
    public var environmentVariable: String { "PINGTXT_\(section)_\(name)".uppercased() }
    public var defaultValue: TOMLValue { read(HubConfig()) }

    init<T>(_ section: String, _ name: String, _ kind: Kind, _ keyPath: WritableKeyPath<HubConfig, T> & Sendable, doc: String,
            parse: @escaping @Sendable (TOMLValue) throws(InvalidValue) -> T, render: @escaping @Sendable (T) -> TOMLValue) {
        self.section = section
        self.name = name
        self.kind = kind
        self.doc = doc
        self.read = { render($0[keyPath: keyPath]) }
        self.write = { value, config throws(InvalidValue) in config[keyPath: keyPath] = try parse(value) }
    }

    /// Checks the TOML type; the message is used as-is ("must be an integer, not a string").
    func checkKind(_ value: TOMLValue) throws(InvalidValue) {
        let ok: Bool
        switch (kind, value) {
        case (.string, .string), (.integer, .integer), (.boolean, .boolean): ok = true
        case (.stringArray, .array(let items)): ok = items.allSatisfy { $0.stringValue != nil }
        default: ok = false
        }
        let article = kind == .integer || kind == .stringArray ? "an" : "a"
        if !ok { throw InvalidValue("must be \(article) \(kind.rawValue), not \(value.typeName)") }
    }

    func set(_ value: TOMLValue, in config: inout HubConfig) throws(InvalidValue) {
        try checkKind(value)
        try write(value, &config)
    }

    /// This key, marked as a secret.
    func secret() -> ConfigKey {
        var k = self
        k.isSecret = true
        return k
    }

    // MARK: Builders for the table

    static func integer(_ section: String, _ name: String, _ keyPath: WritableKeyPath<HubConfig, Int> & Sendable,
                        _ range: ClosedRange<Int>, _ doc: String) -> ConfigKey {
        ConfigKey(section, name, .integer, keyPath, doc: doc, parse: { value throws(InvalidValue) in
            let n = value.integerValue ?? 0
            guard range.contains(n) else { throw InvalidValue("must be between \(range.lowerBound) and \(range.upperBound), got \(n)") }
            return n
        }, render: { .integer($0) })
    }

    static func boolean(_ section: String, _ name: String, _ keyPath: WritableKeyPath<HubConfig, Bool> & Sendable,
                        _ doc: String) -> ConfigKey {
        ConfigKey(section, name, .boolean, keyPath, doc: doc, parse: { $0.booleanValue ?? false }, render: { .boolean($0) })
    }

    /// A string key stored as `T`; `parse` validates and converts, `render` gives the TOML text back.
    static func string<T>(_ section: String, _ name: String, _ keyPath: WritableKeyPath<HubConfig, T> & Sendable, _ doc: String,
                          parse: @escaping @Sendable (String) throws(InvalidValue) -> T,
                          render: @escaping @Sendable (T) -> String) -> ConfigKey {
        ConfigKey(section, name, .string, keyPath, doc: doc, parse: { value throws(InvalidValue) in
            try parse(value.stringValue ?? "")
        }, render: { .string(render($0)) })
    }

    /// One of a fixed set of words.
    static func choice<T: Equatable>(_ section: String, _ name: String, _ keyPath: WritableKeyPath<HubConfig, T> & Sendable,
                                     _ choices: [(String, T)], _ doc: String) -> ConfigKey where T: Sendable {
        let names = choices.map(\.0).joined(separator: ", ")
        return string(section, name, keyPath, doc, parse: { s throws(InvalidValue) in
            guard let match = choices.first(where: { $0.0 == s }) else { throw InvalidValue("must be one of \(names), got \(TOMLValue.quote(s))") }
            return match.1
        }, render: { v in choices.first(where: { $0.1 == v })?.0 ?? "" })
    }

    static func stringArray<T>(_ section: String, _ name: String, _ keyPath: WritableKeyPath<HubConfig, [T]> & Sendable, _ doc: String,
                               parse: @escaping @Sendable (String) throws(InvalidValue) -> T,
                               render: @escaping @Sendable (T) -> String) -> ConfigKey {
        ConfigKey(section, name, .stringArray, keyPath, doc: doc, parse: { value throws(InvalidValue) in
            var out: [T] = []
            for item in value.arrayValue ?? [] { out.append(try parse(item.stringValue ?? "")) }
            return out
        }, render: { .array($0.map { .string(render($0)) }) })
    }
}

public enum ConfigKeys {
    /// Every key, in documentation order (grouped by section). Adding a key:
    /// add the field (with its default) to `HubConfig` and one line here.
    public static let all: [ConfigKey] = [
        .string("server", "listen", \.server.listen,
                "Address the HTTP server listens on: host:port, IPv6 in brackets (\"[::1]:8080\").\nPort 0 picks any free port.",
                parse: { s throws(InvalidValue) in try ListenAddress(parsing: s) }, render: \.description),
        .string("server", "public_url", \.server.publicURL,
                "URL clients use to reach the hub (http:// or https://, no path). Used as the OAuth issuer\nand for links; https makes session cookies Secure.",
                parse: { s throws(InvalidValue) in try Validate.publicURL(s) }, render: { $0 }),
        .stringArray("server", "trusted_proxies", \.server.trustedProxies,
                     "Reverse proxies (IP addresses or CIDR blocks) whose X-Forwarded-For and\nX-Forwarded-Proto headers are honoured, e.g. [\"127.0.0.1\", \"10.0.0.0/8\", \"::1\"].",
                     parse: { s throws(InvalidValue) in try IPNetwork(parsing: s) }, render: \.description),
        .integer("server", "event_loops", \.server.eventLoops, 0...256, "Network event loop threads; 0 = one per CPU core."),
        .integer("server", "workers", \.server.workers, 0...1024, "Request handler threads for quick handlers; 0 = two per CPU core."),
        .integer("server", "blocking_workers", \.server.blockingWorkers, 1...4096, "Threads for handlers that wait long (check now runs a check before answering)."),
        .integer("server", "max_connections", \.server.maxConnections, 1...1_000_000, "Maximum simultaneously open client connections."),
        .integer("server", "max_request_line_bytes", \.server.maxRequestLineBytes, 256...1_048_576, "Longest request line accepted; longer gets 414."),
        .integer("server", "max_header_bytes", \.server.maxHeaderBytes, 1024...4_194_304, "Largest header section accepted; larger gets 431."),
        .integer("server", "max_body_bytes", \.server.maxBodyBytes, 0...1_073_741_824, "Largest request body accepted; larger gets 413."),
        .integer("server", "header_timeout_ms", \.server.headerTimeoutMs, 100...3_600_000, "A request's headers must arrive within this many milliseconds."),
        .integer("server", "idle_timeout_ms", \.server.idleTimeoutMs, 100...86_400_000, "An idle keep-alive connection is closed after this many milliseconds."),
        .integer("server", "shutdown_timeout_ms", \.server.shutdownTimeoutMs, 0...600_000, "On SIGTERM/SIGINT, in-flight requests get this many milliseconds to finish."),
        .boolean("server", "access_log", \.server.accessLog, "Log one line per HTTP request."),

        .string("database", "path", \.database.path, "SQLite database file; created (with its directory) if missing.",
                parse: { s throws(InvalidValue) in try Validate.path(s) }, render: { $0 }),
        ConfigKey.string("database", "url", \.database.url,
                         "Instead of path: sqlite:///var/lib/pingtxt/pingtxt.db, or PostgreSQL 14+ as\npostgres://user:password@host:5432/pingtxt?sslmode=require (libpq's parameters;\nseveral hubs may share one PostgreSQL database). Setting both path and url is an error.",
                         parse: { s throws(InvalidValue) in
                             if s.isEmpty { return nil }
                             do throws(DatabaseURLError) { return try DatabaseURL(s) } catch { throw InvalidValue(error.description) }
                         }, render: { $0?.text ?? "" }).secret(),
        .integer("database", "readers", \.database.readers, 1...64, "Read-only connections for concurrent queries."),
        .integer("database", "busy_timeout_ms", \.database.busyTimeoutMs, 0...600_000, "How long a query waits for a lock before failing."),

        .choice("log", "level", \.log.level, [("debug", .debug), ("info", .info), ("warn", .warn), ("error", .error)],
                "Minimum level logged: debug, info, warn or error."),
        .choice("log", "format", \.log.format, [("text", .text), ("json", .json)],
                "Log line format on stderr: text or json (one JSON object per line)."),

        .boolean("metrics", "public", \.metrics.isPublic, "Serve /metrics without a token (otherwise any read token is needed)."),

        .string("checks", "location", \.checks.location, "Name of the hub's own check location (agents have their own names).",
                parse: { s throws(InvalidValue) in try Validate.locationName(s) }, render: { $0 }),
        .integer("checks", "max_concurrent", \.checks.maxConcurrent, 1...100_000, "Checks running at the same time at most; further due checks wait their turn."),
        .string("checks", "ca_file", \.checks.caFile, "Extra CA certificates (PEM file) trusted by HTTPS and TLS checks, besides the system's;\nempty = none.",
                parse: { s throws(InvalidValue) in s }, render: { $0 }),
        .string("checks", "source_address", \.checks.sourceAddress,
                "Local IP address HTTP, TCP and TLS checks connect from (bound before connecting), for hosts\nwith several addresses; empty = the system chooses.",
                parse: { s throws(InvalidValue) in try Validate.sourceAddress(s) }, render: { $0 }),
        .integer("retention", "raw_days", \.retention.rawDays, 1...3650, "Days raw check results are kept (older ones live on as hourly and daily roll-ups);\nsent and failed notifications leave the outbox after as many days."),
        .integer("retention", "hourly_days", \.retention.hourlyDays, 1...3650, "Days hourly roll-ups are kept (uptime over 90 days needs at least 90)."),
        .integer("retention", "daily_days", \.retention.dailyDays, 1...36500, "Days daily roll-ups are kept (status pages show 90 days)."),
        .integer("retention", "raw_sample_minutes", \.retention.rawSampleMinutes, 0...60,
                 "Once an hour is rolled up, its raw `up` results are thinned to one per this many minutes per\nlocation; failures and status changes are always kept. 0 = keep every result (docs/storage.md)."),

        .integer("agents", "poll_interval", \.agents.pollInterval, 1...300,
                 "Seconds between an agent's contacts; an agent not heard from for 3 times this is offline."),

        .string("hub", "name", \.hub.name, "Name shown on the login and consent pages and in notifications.",
                parse: { s throws(InvalidValue) in try Validate.displayName(s) }, render: { $0 }),

        .boolean("auth", "phone_approval", \.auth.phoneApproval,
                 "Users with two-factor authentication and a phone enrolled in the app may approve a web sign-in\non the phone (by the number the browser shows) instead of typing the code; false = only codes."),

        .integer("mobile", "max_devices_per_user", \.mobile.maxDevicesPerUser, 1...1000,
                 "Phones one user may have enrolled through the app (over all their sign-ins); enrolling one\nmore removes the phone that was seen least recently, which then gets no more pushes."),

        .integer("status_pages", "cache_seconds", \.statusPages.cacheSeconds, 0...300,
                 "A public status page, once built, is served this many seconds before it is built again\n(one build at a time per page; editing the page shows at once). 0 = build every request."),

        .string("smtp", "host", \.smtp.host, "Mail server that email channels send through (a host name or IP address);\nempty = email is not configured.",
                parse: { s throws(InvalidValue) in try Validate.mailHost(s) }, render: { $0 }),
        .integer("smtp", "port", \.smtp.port, 1...65535, "Mail server port: usually 587 for starttls, 465 for tls."),
        .choice("smtp", "security", \.smtp.security, [("starttls", .startTLS), ("tls", .tls), ("none", .none)],
                "starttls (plain connect, then STARTTLS, required), tls (TLS from the first byte)\nor none (no encryption; only allowed to a loopback host). Certificates are verified\nagainst the system's store plus checks.ca_file."),
        .string("smtp", "username", \.smtp.username, "User name for AUTH PLAIN or LOGIN; empty = do not authenticate.",
                parse: { s throws(InvalidValue) in try Validate.singleLine(s) }, render: { $0 }),
        ConfigKey.string("smtp", "password", \.smtp.password, "Password for the user name (never logged).",
                         parse: { s throws(InvalidValue) in try Validate.singleLine(s) }, render: { $0 }).secret(),
        .string("smtp", "from", \.smtp.from, "Sender address of alert mails (From and MAIL FROM), e.g. \"pingtxt@example.com\";\nrequired when host is set.",
                parse: { s throws(InvalidValue) in try Validate.mailAddress(s) }, render: { $0 }),
        .string("smtp", "helo_name", \.smtp.heloName, "Name the hub gives in EHLO; empty = this machine's host name.",
                parse: { s throws(InvalidValue) in try Validate.heloName(s) }, render: { $0 }),
        .integer("smtp", "timeout_seconds", \.smtp.timeoutSeconds, 1...600, "Bounds connecting, the TLS handshake and every single read or write to the mail server."),
        .string("agent", "hub", \.agent.hub,
                "pingtxt agent only: the hub's URL (https://; http:// only to a loopback address). --hub overrides it.",
                parse: { s throws(InvalidValue) in try Validate.plainText(s) }, render: { $0 }),
        ConfigKey.string("agent", "token", \.agent.token,
                         "pingtxt agent only: the agent's pmg_ token from POST /api/agents (never logged). --token overrides it.",
                         parse: { s throws(InvalidValue) in try Validate.plainText(s) }, render: { $0 }).secret(),
        .string("agent", "name", \.agent.name,
                "pingtxt agent only: the agent name the hub must report for this token (a safety check); empty = any.\n--name overrides it.",
                parse: { s throws(InvalidValue) in try Validate.plainText(s) }, render: { $0 }),
    ]

    /// Keys of one section.
    public static func keys(in section: String) -> [ConfigKey] { all.filter { $0.section == section } }

    /// Section names in order.
    public static var sections: [String] {
        var seen: [String] = []
        for key in all where !seen.contains(key.section) { seen.append(key.section) }
        return seen
    }
}
