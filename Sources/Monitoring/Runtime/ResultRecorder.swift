import Core
import Store

/// Applies one input (a check result, pause, resume) to a monitor inside the
/// caller's write transaction: stores the result, runs the pure state
/// machine, and writes its effects (incidents, timeline, events) in the same
/// transaction as the new state, so an event exists exactly when the state
/// change that caused it does.
public struct ResultRecorder: Sendable {
    public let hubLocation: String
    public let calendar: MaintenanceCalendar
    /// Writes the outbox rows of each event in the same transaction.
    public let sink: (any EventSink)?
    /// Which agents are online now: the quorum counts only those.
    public let roster: AgentRoster

    public init(hubLocation: String, calendar: MaintenanceCalendar, sink: (any EventSink)? = nil,
                roster: AgentRoster = AgentRoster()) {
        self.hubLocation = hubLocation
        self.calendar = calendar
        self.sink = sink
        self.roster = roster
    }

    /// Applies the input. `config` saves decoding the stored configuration
    /// when the caller already has it (the registry does). Returns the
    /// monitor as stored afterwards when `returning` (nil if it no longer
    /// exists); hot paths pass false and skip that read.
    @discardableResult
    public func apply(_ input: MonitorInput, monitorID: Int64, on c: Connection, config known: MonitorConfig? = nil,
                      returning: Bool = true) throws -> MonitorRecord? {
        let record: Monitors.StateRow
        let config: MonitorConfig
        if let known {
            guard let row = try Monitors.stateForUpdate(c, id: monitorID) else { return nil }
            (record, config) = (row, known)
        } else {
            guard let full = try Monitors.findForUpdate(c, id: monitorID) else { return nil }
            (record, config) = (Monitors.StateRow(full), try MonitorConfig(record: full))
        }
        let state = MonitorStateCoding.decode(record.state, status: MonitorStatus(rawValue: record.status) ?? .pending,
                                              since: record.statusSince)
        let at: Int64
        switch input {
        case .result(let r): at = r.at
        case .pause(let t), .resume(let t): at = t
        }
        let inMaintenance = calendar.isInMaintenance(monitorID: monitorID, at: at)
        var last: Monitors.LastCheck?
        if case .result(let r) = input {
            last = try store(r, config: config, record: record, inMaintenance: inMaintenance, on: c)
        }
        let (next, effects) = StateMachine.apply(input, to: state, policy: policy(config), inMaintenance: inMaintenance)
        try write(effects, monitorID: monitorID, interval: config.interval, hasParents: record.hasParents, at: at, on: c)
        var paused = record.paused
        if case .pause = input { paused = true }
        if case .resume = input { paused = false }
        let encoded = MonitorStateCoding.encode(next)
        let statusKept = next.status.rawValue == record.status && next.statusSince == record.statusSince && paused == record.paused
        if let last, statusKept {
            try Monitors.updateState(c, id: monitorID, state: encoded, last: last)
        } else if let last {
            try Monitors.updateState(c, id: monitorID, status: next.status.rawValue, statusSince: next.statusSince,
                                     state: encoded, paused: paused, last: last)
        } else {
            try Monitors.updateState(c, id: monitorID, status: next.status.rawValue, statusSince: next.statusSince,
                                     state: encoded, paused: paused)
        }
        // With the new state stored: held alerts of this monitor and of its
        // children may be decided now (docs/monitoring.md "Dependencies").
        // The record's flags (migration 0026) spare the lookups for monitors
        // in no dependency, which is most of them.
        if record.hasParents || record.hasChildren {
            try holds.settle(after: monitorID, ownHold: record.hasParents, children: record.hasChildren, at: at, on: c)
        }
        return returning ? try Monitors.find(c, id: monitorID) : nil
    }

    /// The locations whose results count: the monitor's *online* locations
    /// (docs/agents.md "Quorum"). An offline agent's last view is not counted
    /// until it reports again.
    func policy(_ config: MonitorConfig) -> MonitorPolicy {
        let online = roster.onlineViews()
        let locations = Self.onlineLocations(config, hub: hubLocation, online: online.names)
        return MonitorPolicy(retries: Int(config.retries), degradedAfterMs: config.degradedAfterMs.map(Int.init),
                             certExpiryDays: config.tracksCertificate ? config.certExpiryDays.map(Int.init) : nil,
                             confirmLocations: Int(config.confirmLocations), locations: locations,
                             countedSince: online.countedSince.filter { $0.key != hubLocation })
    }

    /// The hub (when `locations` is empty or names it) and every online
    /// agent the monitor names (all online agents when empty), hub first.
    /// Heartbeats are received by the hub only.
    public static func onlineLocations(_ config: MonitorConfig, hub: String, online: [String]) -> [String] {
        if config.type == .heartbeat { return [hub] }
        var out: [String] = []
        if config.locations.isEmpty || config.locations.contains(hub) { out.append(hub) }
        for name in online where name != hub && (config.locations.isEmpty || config.locations.contains(name)) {
            out.append(name)
        }
        return out
    }

    /// "degraded" for a success slower than the monitor's threshold.
    static func resultStatus(_ r: CheckResult, degradedAfterMs: Int64?) -> String {
        if r.outcome == .down { return "down" }
        if let limit = degradedAfterMs, let latency = r.latencyMs, Int64(latency) > limit { return "degraded" }
        return "up"
    }

    /// Stores the result row; returns the monitor's new last-check columns,
    /// or nil when the result is older than the last one (late upload).
    private func store(_ r: CheckResult, config: MonitorConfig, record: Monitors.StateRow, inMaintenance: Bool,
                       on c: Connection) throws -> Monitors.LastCheck? {
        let status = Self.resultStatus(r, degradedAfterMs: config.degradedAfterMs)
        try CheckResults.insert(c, Self.row(r, monitorID: record.id, status: status, inMaintenance: inMaintenance))
        return Self.lastCheck(r, status: status, after: record.lastAt)
    }

    /// The stored row of a result.
    static func row(_ r: CheckResult, monitorID: Int64, status: String, inMaintenance: Bool) -> CheckResultRecord {
        CheckResultRecord(monitorID: monitorID, atMs: r.atMs ?? r.at * 1000, location: r.location, status: status,
                          latencyMs: r.latencyMs.map(Int64.init), statusCode: r.statusCode.map(Int64.init), error: r.error,
                          inMaintenance: inMaintenance, packetLoss: r.packetLoss)
    }

    /// The monitor's last-check columns after `r`, or nil when `r` is older
    /// than the last check stored (`lastAt`): a late upload.
    static func lastCheck(_ r: CheckResult, status: String, after lastAt: Int64?) -> Monitors.LastCheck? {
        guard (lastAt ?? 0) <= r.at else { return nil }
        return Monitors.LastCheck(at: r.at, location: r.location, status: status, latencyMs: r.latencyMs.map(Int64.init),
                                  statusCode: r.statusCode.map(Int64.init), error: r.error, certNotAfter: r.certNotAfter,
                                  packetLoss: r.packetLoss)
    }

    var holds: DependencyHolds { DependencyHolds(calendar: calendar, sink: sink) }

    private func write(_ effects: [Effect], monitorID: Int64, interval: Int64, hasParents: Bool, at: Int64,
                       on c: Connection) throws {
        var lastClosed: Int64?
        // A closed incident whose alert was held or suppressed: nothing went
        // out for it, so its recovery sends nothing either (SPEC §12).
        var closedQuietly = false
        var closed: [(IncidentRecord, String)] = []
        var incidentsChanged = false
        for effect in effects {
            switch effect {
            case .statusChanged:
                break
            case .openIncident(let kind, let cause, let locations):
                if try Incidents.findOpen(c, monitorID: monitorID, kind: kind.rawValue) == nil {
                    _ = try Incidents.open(c, monitorID: monitorID, kind: kind.rawValue, cause: cause,
                                           locations: locations, at: at)
                    incidentsChanged = true
                }
            case .closeIncident(let kind, let reason):
                if let incident = try Incidents.close(c, monitorID: monitorID, kind: kind.rawValue, at: at) {
                    lastClosed = incident.id
                    closedQuietly = incident.heldUntil != nil || incident.suppressedBy != nil
                    closed.append((incident, reason))
                    incidentsChanged = true
                }
            case .timeline(let kind, let event, let detail):
                if let open = try Incidents.findOpen(c, monitorID: monitorID, kind: kind.rawValue) {
                    try Incidents.addTimeline(c, incidentID: open.id, at: at, event: event, detail: detail)
                }
            case .event(let kind, let cause, let locations, let suppressed):
                if kind == .monitorDown, !suppressed, hasParents,
                   try holds.holdAlert(monitorID: monitorID, interval: interval, at: at, on: c) { continue }
                if kind == .monitorUp, closedQuietly { continue }
                let incident: Int64?
                switch kind {
                case .monitorDown: incident = try Incidents.findOpen(c, monitorID: monitorID, kind: "down")?.id
                case .monitorDegraded: incident = try Incidents.findOpen(c, monitorID: monitorID, kind: "degraded")?.id
                case .expiry: incident = try Incidents.findOpen(c, monitorID: monitorID, kind: "expiry")?.id
                case .monitorUp: incident = lastClosed
                // The state machine raises monitor events only; agents' come from AgentService
                // (and messages come from `POST /api/messages`).
                case .agentOffline, .agentOnline, .message: incident = nil
                }
                var event = EventRecord(kind: kind.rawValue, monitorID: monitorID, incidentID: incident, at: at,
                                        cause: cause, locations: locations, suppressed: suppressed)
                event.id = try Events.insert(c, event)
                try sink?.didInsert(event, on: c)
            }
        }
        // After the events: the sink sees whether a monitor_up went out for
        // each closed incident (paging services resolve the rest).
        for (incident, reason) in closed { try sink?.incidentClosed(incident, reason: reason, on: c) }
        if incidentsChanged { try sink?.incidentsChanged(monitorID: monitorID, on: c) }
    }
}
