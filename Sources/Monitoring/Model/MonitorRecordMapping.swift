import Core
import Store

extension MonitorConfig {
    /// Reads the configuration back from its row. Rows are written only
    /// through `write(into:)` after validation, so settings that do not
    /// validate mean the database was edited by hand: that is reported, not
    /// guessed (JSON that does not decode already failed the row's read).
    public init(record r: MonitorRecord) throws {
        guard let type = MonitorType(rawValue: r.type) else {
            throw MonitorDataError("monitor \(r.id) has unknown type \(r.type)")
        }
        self.init(name: r.name, type: type, target: r.target)
        interval = r.interval
        timeout = r.timeout
        retries = r.retries
        paused = r.paused
        locations = r.locations
        tags = r.tags
        confirmLocations = r.confirmLocations
        degradedAfterMs = r.degradedAfterMs
        certExpiryDays = r.certExpiryDays
        priority = r.priority
        escalationPolicyID = r.escalationPolicyID
        let settings = try JSONFields(.object(r.settings))
        switch type {
        case .http: http = try MonitorValidator.parseHTTP(try settings.nested("http"))
        case .dns: dns = try MonitorValidator.parseDNS(try settings.nested("dns"))
        case .heartbeat: heartbeat = try MonitorValidator.parseHeartbeat(try settings.nested("heartbeat"))
        case .ping: ping = try MonitorValidator.parsePing(try settings.nested("ping"))
        case .tcp, .tls: break
        }
    }

    /// Writes the configuration columns of a row (state columns untouched).
    public func write(into r: inout MonitorRecord) {
        r.name = name
        r.type = type.rawValue
        r.target = target
        r.interval = type == .heartbeat ? heartbeatInterval : interval
        r.timeout = timeout
        r.retries = retries
        r.paused = paused
        r.locations = locations
        r.tags = tags
        r.confirmLocations = confirmLocations
        r.degradedAfterMs = degradedAfterMs
        r.certExpiryDays = certExpiryDays
        r.priority = priority
        r.escalationPolicyID = escalationPolicyID
        r.settings = settingsJSON()
    }

    /// A heartbeat is not polled; its interval shows the expected period.
    var heartbeatInterval: Int64 {
        if case .period(let p, _)? = heartbeat { return min(max(p, 10), 86_400) }
        return interval
    }
}

/// A stored monitor that cannot be read back.
public struct MonitorDataError: Error, CustomStringConvertible {
    public let description: String
    init(_ message: String) { description = message }
}
