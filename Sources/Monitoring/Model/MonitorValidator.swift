import Core

/// Builds a validated `MonitorConfig` from an API body. A PATCH is the
/// stored configuration's JSON with the body merged onto it (nested objects
/// merged key by key), validated as a whole, so create and update share
/// every rule. Each error names its field.
public enum MonitorValidator {
    public static func create(_ body: JSONFields) throws(JSONFieldError) -> MonitorConfig {
        try parse(body)
    }

    public static func patch(_ existing: MonitorConfig, with body: JSONFields) throws(JSONFieldError) -> MonitorConfig {
        if let type = try body.string("type"), type != existing.type.rawValue {
            throw JSONFieldError(field: "type", message: "type cannot be changed; create a new monitor instead.")
        }
        guard case .object(let base) = existing.json() else { return existing }
        var merged = merge(base, body.object)
        // A credential header sent back as the mask reads shows keeps its value.
        if case .object(var http)? = merged["http"], case .object(let headers)? = http["headers"],
           case .object(let oldHTTP)? = base["http"], case .object(let oldHeaders)? = oldHTTP["headers"] {
            http["headers"] = .object(SecretMask.restoreHeaders(headers, stored: oldHeaders))
            merged["http"] = .object(http)
        }
        return try parse(try JSONFields(.object(merged)))
    }

    static func merge(_ base: JSONObject, _ patch: JSONObject) -> JSONObject {
        var out = base
        for (key, value) in patch.entries {
            if case .object(let p) = value, case .object(let b)? = base[key] {
                out[key] = .object(merge(b, p))
            } else {
                out[key] = value
            }
        }
        return out
    }

    static func parse(_ b: JSONFields) throws(JSONFieldError) -> MonitorConfig {
        let name = try b.requiredString("name").trimmingWhitespace()
        guard !name.isEmpty, TextLimit.fits(name, characters: 200) else {
            throw JSONFieldError(field: "name", message: "name must be 1 to \(TextLimit.describe(characters: 200)).")
        }
        let typeText = try b.requiredString("type")
        guard let type = MonitorType(rawValue: typeText) else {
            throw JSONFieldError(field: "type", message: "type must be one of: \(MonitorType.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        var m = MonitorConfig(name: name, type: type, target: nil)
        m.target = try Targets.validate(try b.string("target"), type: type)
        m.interval = try b.int("interval", in: 10...86_400) ?? 60
        m.timeout = try b.int("timeout", in: 1...300) ?? min(10, m.interval)
        if type != .heartbeat && m.timeout > m.interval {
            throw JSONFieldError(field: "timeout", message: "timeout must not be longer than interval (\(m.interval) s).")
        }
        m.retries = try b.int("retries", in: 0...10) ?? 1
        // A heartbeat's failure ping or missed deadline is already a verdict:
        // retries do not apply (SPEC §5).
        if type == .heartbeat { m.retries = 0 }
        m.paused = try b.bool("paused") ?? false
        m.locations = try b.stringArray("locations") ?? []
        for (i, loc) in m.locations.enumerated() where !Targets.isLocationName(loc) {
            throw JSONFieldError(field: "locations[\(i)]", message: "locations[\(i)] must be a location name (letters, digits, - and _).")
        }
        m.tags = try MonitorTagRules.parse(b)
        m.confirmLocations = try b.int("confirm_locations", in: 1...64) ?? 1
        if !m.locations.isEmpty && m.confirmLocations > Int64(m.locations.count) {
            throw JSONFieldError(field: "confirm_locations", message: "confirm_locations cannot exceed the number of locations.")
        }
        m.degradedAfterMs = try b.int("degraded_after_ms", in: 1...300_000)
        m.certExpiryDays = try b.int("cert_expiry_days", in: 1...365) ?? (m.tracksCertificate && !b.has("cert_expiry_days") ? 14 : nil)
        // The notifier resolves it per event (Notify's AlertPriority); null = the defaults.
        m.priority = try b.int("priority", in: 0...10)
        // Whether the policy exists is checked where the monitor is written
        // (`MonitoringService`), in the same transaction.
        m.escalationPolicyID = try b.int("escalation_policy_id")
        if let id = m.escalationPolicyID, id < 1 {
            throw JSONFieldError(field: "escalation_policy_id", message: "escalation_policy_id must be an escalation policy id, or null.")
        }
        // Existence and cycles need the other monitors: checked where the
        // monitor is written (`MonitoringService.checkDependencies`).
        m.dependsOn = try DependencyGraph.parse(b.object["depends_on"])

        try refuse(b, "http", unless: type == .http)
        try refuse(b, "dns", unless: type == .dns)
        try refuse(b, "heartbeat", unless: type == .heartbeat)
        try refuse(b, "ping", unless: type == .ping)
        switch type {
        case .http: m.http = try parseHTTP(try b.nested("http"))
        case .dns: m.dns = try parseDNS(try b.nested("dns"))
        case .heartbeat: m.heartbeat = try parseHeartbeat(try b.nested("heartbeat"))
        case .ping: m.ping = try parsePing(try b.nested("ping"))
        case .tcp, .tls: break
        }
        return m
    }

    static func refuse(_ b: JSONFields, _ key: String, unless allowed: Bool) throws(JSONFieldError) {
        if !allowed, let v = b.object[key], v != .null {
            throw JSONFieldError(field: key, message: "\(key) settings apply only to \(key) monitors.")
        }
    }

    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    static func parseHTTP(_ f: JSONFields?) throws(JSONFieldError) -> HTTPSettings {
        var h = HTTPSettings()
        guard let f else { return h }
        if let method = try f.string("method") {
            guard methods.contains(method.uppercased()) else {
                throw JSONFieldError(field: "http.method", message: "http.method must be one of: \(methods.joined(separator: ", ")).")
            }
            h.method = method.uppercased()
        }
        if let headers = try f.nested("headers") {
            guard headers.object.entries.count <= 50 else {
                throw JSONFieldError(field: "http.headers", message: "http.headers may name at most 50 headers.")
            }
            for (k, v) in headers.object.entries {
                guard case .string(let value) = v, Targets.isHeaderName(k), k.utf8.count <= 256, Targets.isHeaderValue(value),
                      value.utf8.count <= 8192 else {
                    throw JSONFieldError(field: "http.headers.\(k)", message: "http.headers must map header names (at most 256 bytes) to string values without line breaks (at most 8192 bytes).")
                }
                h.headers.append((k, value))
            }
        }
        h.body = try f.string("body")
        if let body = h.body, body.utf8.count > 64 * 1024 {
            throw JSONFieldError(field: "http.body", message: "http.body must be at most 64 KiB.")
        }
        if let expected = try f.string("expected_status") {
            guard let ranges = StatusRanges(expected) else {
                throw JSONFieldError(field: "http.expected_status", message: "http.expected_status must be codes or ranges such as 200-299,301.")
            }
            h.expectedStatus = ranges
        }
        h.keyword = try f.string("keyword")
        if let k = h.keyword, k.isEmpty || k.utf8.count > 1024 {
            throw JSONFieldError(field: "http.keyword", message: "http.keyword must be 1 to 1024 bytes, or null.")
        }
        h.keywordAbsent = try f.bool("keyword_absent") ?? false
        h.followRedirects = try f.bool("follow_redirects") ?? true
        h.verifyTLS = try f.bool("verify_tls") ?? true
        h.json = try JSONAssertion.parseList(f.object["json"], field: f.name("json"))
        return h
    }

    static func parsePing(_ f: JSONFields?) throws(JSONFieldError) -> PingSettings {
        var p = PingSettings()
        if let count = try f?.int("count", in: 1...10) { p.count = Int(count) }
        return p
    }

    static let recordTypes = ["A", "AAAA", "CNAME", "MX", "TXT", "NS"]

    static func parseDNS(_ f: JSONFields?) throws(JSONFieldError) -> DNSSettings {
        var d = DNSSettings()
        guard let f else { return d }
        if let t = try f.string("record_type") {
            guard recordTypes.contains(t.uppercased()) else {
                throw JSONFieldError(field: "dns.record_type", message: "dns.record_type must be one of: \(recordTypes.joined(separator: ", ")).")
            }
            d.recordType = t.uppercased()
        }
        d.expected = try f.string("expected")
        if let e = d.expected, e.utf8.count > 1024 {
            throw JSONFieldError(field: "dns.expected", message: "dns.expected must be at most 1024 bytes.")
        }
        if let r = try f.string("resolver") {
            guard Targets.isResolverAddress(r) else {
                throw JSONFieldError(field: "dns.resolver", message: "dns.resolver must be an IP address, optionally with :port (IPv6 in brackets).")
            }
            d.resolver = r
        }
        return d
    }

    static func parseHeartbeat(_ f: JSONFields?) throws(JSONFieldError) -> HeartbeatSettings {
        guard let f else { return .period(seconds: 3600, grace: 300) }
        let grace = try f.int("grace", in: 10...2_592_000) ?? 300
        if let cron = try f.string("cron") {
            if f.has("period") && f.object["period"] != .null {
                throw JSONFieldError(field: "heartbeat.period", message: "Give either heartbeat.period or heartbeat.cron, not both.")
            }
            let zone = try f.string("timezone") ?? "UTC"
            guard cron.utf8.count <= 256 else {
                throw JSONFieldError(field: "heartbeat.cron", message: "heartbeat.cron must be at most 256 bytes.")
            }
            try HeartbeatSchedules.validate(cron: cron, timezone: zone)
            return .cron(expression: cron, timezone: zone, grace: grace)
        }
        let period = try f.int("period", in: 10...31_536_000) ?? 3600
        return .period(seconds: period, grace: grace)
    }
}
