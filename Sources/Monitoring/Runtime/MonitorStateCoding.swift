import Core

/// `MonitorState` as the JSON kept in `monitors.state` (status and
/// status_since have their own columns, so queries can filter on them).
enum MonitorStateCoding {
    static func encode(_ s: MonitorState) -> String {
        var locations = JSONObject()
        for name in s.locations.keys.sorted() {
            let l = s.locations[name]!
            locations[name] = .object(JSONObject([
                ("outcome", .from(l.outcome?.rawValue)), ("failures", .int(Int64(l.consecutiveFailures))),
                ("slow", .int(Int64(l.consecutiveSlow))), ("last_at", .from(l.lastAt)), ("last_error", .from(l.lastError)),
                ("last_latency_ms", .from(l.lastLatencyMs.map(Int64.init))),
            ]))
        }
        let json: JSON = ["locations": .object(locations),
                          "open": .array(s.openIncidents.map(\.rawValue).sorted().map { .string($0) }),
                          "cert_not_after": .from(s.certNotAfter)]
        return json.text
    }

    /// Decodes what `encode` wrote; anything unreadable starts from fresh
    /// counters (the status columns still hold the truth a person sees).
    static func decode(_ text: String, status: MonitorStatus, since: Int64) -> MonitorState {
        var state = MonitorState(status: status, statusSince: since)
        guard let json = try? JSON.parse(text) else { return state }
        if let locations = json["locations"]?.objectValue {
            for (name, value) in locations.entries {
                state.locations[name] = LocationState(
                    outcome: value["outcome"]?.stringValue.flatMap(CheckOutcome.init(rawValue:)),
                    consecutiveFailures: Int(value["failures"]?.intValue ?? 0),
                    consecutiveSlow: Int(value["slow"]?.intValue ?? 0),
                    lastAt: value["last_at"]?.intValue, lastError: value["last_error"]?.stringValue,
                    lastLatencyMs: value["last_latency_ms"]?.intValue.map(Int.init))
            }
        }
        for kind in json["open"]?.arrayValue ?? [] {
            if let k = kind.stringValue.flatMap(IncidentKind.init(rawValue:)) { state.openIncidents.insert(k) }
        }
        state.certNotAfter = json["cert_not_after"]?.intValue
        return state
    }
}
