import Store

/// The effects of `DependencyGate` (SPEC §12), inside the write transaction
/// of the result (or job pass) that decided them: a hold is two columns on
/// the incident, the verdict is claimed with one conditional UPDATE, and a
/// released alert is an ordinary `monitor_down` event written then, so the
/// notifier, escalation and reminders treat it like any other alert. No
/// event row exists for a held or suppressed alert: nothing was raised.
struct DependencyHolds: Sendable {
    let calendar: MaintenanceCalendar
    let sink: (any EventSink)?

    /// Holds the `monitor_down` that `monitorID`'s open `down` incident would
    /// raise at `at`, when the monitor has parents. Returns whether it did
    /// (the caller then writes no event).
    func holdAlert(monitorID: Int64, interval: Int64, at: Int64, on c: Connection) throws(StoreError) -> Bool {
        guard try !Dependencies.parents(c, monitorID: monitorID).isEmpty,
              let incident = try Incidents.findOpen(c, monitorID: monitorID, kind: IncidentKind.down.rawValue) else { return false }
        // The failing result was stored just before (`ResultRecorder.store`).
        let since = try CheckResults.newestID(c, monitorID: monitorID) ?? 0
        try Dependencies.hold(c, incidentID: incident.id, since: since, until: DependencyGate.until(start: at, interval: interval))
        try Incidents.addTimeline(c, incidentID: incident.id, at: at, event: TimelineEvent.held,
                                  detail: "alert held until the monitors it depends on report")
        return true
    }

    /// After `monitorID`'s input was written: its own held alert may now be
    /// decided (a re-hold waits for its result), so may its children's; and a
    /// child it suppressed gets a fresh hold once it is no longer down.
    /// `ownHold` / `children`: whether the monitor has parents / children
    /// (its record's flags); each false skips that lookup.
    func settle(after monitorID: Int64, ownHold: Bool, children hasChildren: Bool, at: Int64,
                on c: Connection) throws(StoreError) {
        if ownHold, let own = try Incidents.findOpen(c, monitorID: monitorID, kind: IncidentKind.down.rawValue),
           own.heldUntil != nil {
            try decide(own, now: at, on: c)
        }
        guard hasChildren else { return }
        let children = try Dependencies.childIncidents(c, parentID: monitorID)
        if children.isEmpty { return }
        guard let parent = try Monitors.find(c, id: monitorID) else { return }
        for incident in children {
            if incident.heldUntil != nil {
                try decide(incident, now: at, on: c)
            } else if parent.status != MonitorStatus.down.rawValue, let child = try Monitors.find(c, id: incident.monitorID) {
                // The suppressing parent is back: alert only if the child is
                // still down at its next result (two intervals at most).
                // From the parent's recovering result: the child's next one decides.
                let since = try CheckResults.newestID(c, monitorID: monitorID) ?? 0
                try Dependencies.hold(c, incidentID: incident.id, since: since,
                                      until: DependencyGate.until(start: at, interval: child.interval))
                try Incidents.addTimeline(c, incidentID: incident.id, at: at, event: TimelineEvent.parentRecovered,
                                          detail: "\(parent.name) is \(parent.status); waiting for this monitor's next result")
                if let fresh = try Incidents.find(c, id: incident.id) { try decide(fresh, now: at, on: c) }
            }
        }
    }

    /// After the parent `parentID` was deleted (its edges are gone): each of
    /// `incidents` — its children's, read before the delete — is decided
    /// against the parents left. One it suppressed is held afresh from the
    /// child's newest result, as when a parent recovers.
    func parentRemoved(_ parentID: Int64, incidents: [IncidentRecord], at: Int64, on c: Connection) throws(StoreError) {
        for incident in incidents {
            if incident.heldUntil == nil, incident.suppressedBy == parentID,
               let child = try Monitors.find(c, id: incident.monitorID) {
                let since = try CheckResults.newestID(c, monitorID: child.id) ?? 0
                try Dependencies.hold(c, incidentID: incident.id, since: since,
                                      until: DependencyGate.until(start: at, interval: child.interval))
                try Incidents.addTimeline(c, incidentID: incident.id, at: at, event: TimelineEvent.parentRecovered,
                                          detail: "the monitor it depended on was deleted")
            }
            if let fresh = try Incidents.find(c, id: incident.id) { try decide(fresh, now: at, on: c) }
        }
    }

    /// Decides one held incident as of `now` and writes the outcome.
    func decide(_ incident: IncidentRecord, now: Int64, on c: Connection) throws(StoreError) {
        guard incident.status == "open", let since = incident.heldSince, let until = incident.heldUntil,
              let child = try Monitors.find(c, id: incident.monitorID) else { return }
        var parents: [DependencyGate.View] = []
        var names: [Int64: String] = [:]
        for id in try Dependencies.parents(c, monitorID: child.id) {
            guard let p = try Monitors.find(c, id: id) else { continue }
            parents.append(try Self.view(p, on: c))
            names[id] = p.name
        }
        switch DependencyGate.decide(since: since, until: until, child: try Self.view(child, on: c), parents: parents, now: now) {
        case .wait:
            return
        case .suppress(let parent):
            guard try Dependencies.claim(c, incidentID: incident.id, suppressedBy: parent) else { return }
            if incident.suppressedBy != parent {
                try Incidents.addTimeline(c, incidentID: incident.id, at: now, event: TimelineEvent.suppressed,
                                          detail: "suppressed by \(names[parent] ?? "monitor \(parent)"), which is down")
            }
        case .release:
            guard try Dependencies.claim(c, incidentID: incident.id, suppressedBy: nil) else { return }
            let detail = incident.suppressedBy == nil ? "the monitors it depends on are not down"
                : "still down after \(names[incident.suppressedBy ?? 0] ?? "its parent") recovered: an independent failure"
            try Incidents.addTimeline(c, incidentID: incident.id, at: now, event: TimelineEvent.alerted, detail: detail)
            var event = EventRecord(kind: EventKind.monitorDown.rawValue, monitorID: child.id, incidentID: incident.id, at: now,
                                    cause: incident.cause, locations: incident.locations,
                                    suppressed: calendar.isInMaintenance(monitorID: child.id, at: now))
            event.id = try Events.insert(c, event)
            try sink?.didInsert(event, on: c)
        }
    }

    static func view(_ r: MonitorRecord, on c: Connection) throws(StoreError) -> DependencyGate.View {
        DependencyGate.View(id: r.id, status: MonitorStatus(rawValue: r.status) ?? .pending,
                            newest: try CheckResults.newestID(c, monitorID: r.id))
    }
}
