import Core

/// Settings of an `http` monitor.
public struct HTTPSettings: Sendable, Equatable {
    public var method = "GET"
    public var headers: [(name: String, value: String)] = []
    public var body: String?
    public var expectedStatus = StatusRanges("200-299")!
    public var keyword: String?
    public var keywordAbsent = false
    public var followRedirects = true
    public var verifyTLS = true
    /// JSON checks on the body (SPEC §12), all of which must hold.
    public var json: [JSONAssertion] = []

    public init() {}

    public static func == (a: HTTPSettings, b: HTTPSettings) -> Bool {
        a.method == b.method && a.headers.elementsEqual(b.headers, by: { $0.name == $1.name && $0.value == $1.value })
            && a.body == b.body && a.expectedStatus == b.expectedStatus && a.keyword == b.keyword
            && a.keywordAbsent == b.keywordAbsent && a.followRedirects == b.followRedirects && a.verifyTLS == b.verifyTLS
            && a.json == b.json
    }
}

/// Settings of a `dns` monitor.
public struct DNSSettings: Sendable, Equatable {
    public var recordType = "A"
    public var expected: String?
    /// `ip` or `ip:port`; nil = the system's resolvers.
    public var resolver: String?
    public init() {}
}

/// Settings of a `ping` monitor (SPEC §12).
public struct PingSettings: Sendable, Equatable {
    /// ICMP echo requests per check, 1–10.
    public var count = 3
    public init() {}
}

/// When a `heartbeat` monitor expects its pings.
public enum HeartbeatSettings: Sendable, Equatable {
    case period(seconds: Int64, grace: Int64)
    case cron(expression: String, timezone: String, grace: Int64)

    public var grace: Int64 {
        switch self {
        case .period(_, let g), .cron(_, _, let g): return g
        }
    }
}

/// A monitor's configuration as the API accepts it, validated. The runtime
/// state (status, last check) lives in the record, not here.
public struct MonitorConfig: Sendable, Equatable {
    public var name: String
    public var type: MonitorType
    public var target: String?
    public var interval: Int64 = 60
    public var timeout: Int64 = 10
    public var retries: Int64 = 1
    public var paused = false
    public var locations: [String] = []
    /// Lowercase, sorted, each once (`MonitorTagRules`).
    public var tags: [String] = []
    public var confirmLocations: Int64 = 1
    public var degradedAfterMs: Int64?
    public var certExpiryDays: Int64?
    /// 0–10 for this monitor's alerts (SPEC §10); nil = the defaults per event.
    public var priority: Int64?
    /// The escalation policy its `down` incidents follow (SPEC §10); nil = none.
    public var escalationPolicyID: Int64?
    /// The monitors this one depends on (SPEC §12), kept in
    /// `monitor_dependencies` rather than on the monitor's row; nil = not
    /// given (a configuration read from the row, or a PATCH without the
    /// field): the stored ones stay.
    public var dependsOn: [Int64]?
    public var http: HTTPSettings?
    public var dns: DNSSettings?
    public var heartbeat: HeartbeatSettings?
    public var ping: PingSettings?

    public init(name: String, type: MonitorType, target: String?) {
        self.name = name
        self.type = type
        self.target = target
    }

    /// The configuration as the registry keeps it: without `dependsOn`, which
    /// is read from its table (a cached copy would go stale when another hub
    /// changes it, and the next PATCH would write that copy back).
    public var cached: MonitorConfig {
        var c = self
        c.dependsOn = nil
        return c
    }

    /// Whether certificate expiry is tracked: https and tls monitors.
    public var tracksCertificate: Bool {
        type == .tls || (type == .http && (target?.lowercased().hasPrefix("https://") ?? false))
    }

    /// The type-specific settings as stored (`monitors.settings`).
    public func settingsJSON() -> JSONObject {
        var o = JSONObject()
        if let h = http {
            o["http"] = .object(JSONObject([
                ("method", .string(h.method)),
                ("headers", .object(JSONObject(h.headers.map { ($0.name, JSON.string($0.value)) }))),
                ("body", .from(h.body)),
                ("expected_status", .string(h.expectedStatus.description)),
                ("keyword", .from(h.keyword)),
                ("keyword_absent", .bool(h.keywordAbsent)),
                ("follow_redirects", .bool(h.followRedirects)),
                ("verify_tls", .bool(h.verifyTLS)),
                ("json", .array(h.json.map { $0.json() })),
            ]))
        }
        if let d = dns {
            o["dns"] = ["record_type": .string(d.recordType), "expected": .from(d.expected), "resolver": .from(d.resolver)]
        }
        if let p = ping {
            o["ping"] = ["count": .int(Int64(p.count))]
        }
        if let hb = heartbeat {
            switch hb {
            case .period(let p, let g): o["heartbeat"] = ["period": .int(p), "grace": .int(g)]
            case .cron(let e, let tz, let g): o["heartbeat"] = ["cron": .string(e), "timezone": .string(tz), "grace": .int(g)]
            }
        }
        return o
    }

    /// Everything the API shows of the configuration, in the spec's order;
    /// also the base that a PATCH is merged onto.
    public func json() -> JSON {
        var o = JSONObject([
            ("name", .string(name)), ("type", .string(type.rawValue)), ("target", .from(target)),
            ("interval", .int(interval)), ("timeout", .int(timeout)), ("retries", .int(retries)), ("paused", .bool(paused)),
            ("locations", .array(locations.map { .string($0) })), ("confirm_locations", .int(confirmLocations)),
            ("degraded_after_ms", .from(degradedAfterMs)), ("cert_expiry_days", .from(certExpiryDays)),
            ("priority", .from(priority)),
            ("escalation_policy_id", .from(escalationPolicyID)),
            ("tags", .array(tags.map { .string($0) })),
        ])
        if let dependsOn { o["depends_on"] = .array(dependsOn.map { .int($0) }) }
        for (k, v) in settingsJSON().entries { o[k] = v }
        return .object(o)
    }
}
