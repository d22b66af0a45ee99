import Core
import Store

/// The notifier's part of escalation (SPEC §10), inside the transactions
/// that open, acknowledge and close incidents: a `down` incident on a
/// monitor with a policy starts its chain with the alert itself (step 1's
/// channels join the alert's own, each once), `monitor_up` reaches every
/// channel the chain alerted, and acknowledging or closing the incident
/// stops the chain in the same transaction. Later steps are the
/// `EscalationJob`'s.
extension Notifier {
    static let escalatedEvent = "escalated"

    /// The channels an event goes to: `routed` (its subscribers) plus, for
    /// the two events escalation touches, the chain's channels.
    func withEscalation(_ routed: [Channel], for event: EventRecord, kind: EventKind,
                        on c: Connection) throws(StoreError) -> [Channel] {
        guard let incidentID = event.incidentID, let monitorID = event.monitorID else { return routed }
        switch kind {
        case .monitorDown: return try startEscalation(routed, event: event, incidentID: incidentID, monitorID: monitorID, on: c)
        case .monitorUp: return try alertedByEscalation(routed, event: event, incidentID: incidentID, monitorID: monitorID, on: c)
        default: return routed
        }
    }

    private func startEscalation(_ routed: [Channel], event: EventRecord, incidentID: Int64, monitorID: Int64,
                                 on c: Connection) throws(StoreError) -> [Channel] {
        guard let policyID = try Monitors.find(c, id: monitorID)?.escalationPolicyID,
              let incident = try Incidents.find(c, id: incidentID), incident.kind == "down",
              let policy = try EscalationPolicies.find(c, id: policyID) else { return routed }
        var state = EscalationStateRecord(incidentID: incidentID, policyID: policyID, eventID: event.id, nextAt: event.at)
        // The start is "step 0, step 1 due now": the same decision as every
        // later step, so maintenance holds step 1 exactly as it holds step 2.
        let decision = EscalationPlan.decide(plan: EscalationPlan(policy), position: .init(round: 0, step: 0), nextAt: event.at,
                                             incident: .init(incident), now: event.at, quiet: event.suppressed)
        switch decision {
        case .send(let position, let ids, let next):
            let step = admitted(ids, kind: .monitorDown, monitorID: monitorID)
            var targets = routed
            for ch in step where !targets.contains(where: { $0.id == ch.id }) { targets.append(ch) }
            state.round = position.round
            state.step = position.step
            state.nextAt = next
            state.alerted = targets.map(\.id)
            // A chain starts once per incident, whatever raised the event.
            guard try Escalations.start(c, state, now: event.at) else { return routed }
            try Incidents.addTimeline(c, incidentID: incidentID, at: event.at, event: Self.escalatedEvent,
                                      detail: Self.stepDetail(position.step, step))
            return targets
        case .hold:
            // Opened during maintenance: nothing goes out now; step 1 waits
            // for the window to end (the job sends it then).
            try Escalations.start(c, state, now: event.at)
            return routed
        case .wait, .stop:
            return routed
        }
    }

    private func alertedByEscalation(_ routed: [Channel], event: EventRecord, incidentID: Int64, monitorID: Int64,
                                     on c: Connection) throws(StoreError) -> [Channel] {
        guard !event.suppressed, let state = try Escalations.find(c, incidentID: incidentID) else { return routed }
        var targets = routed
        for ch in admitted(state.alerted, kind: .monitorUp, monitorID: monitorID) where !targets.contains(where: { $0.id == ch.id }) {
            targets.append(ch)
        }
        return targets
    }

    /// The channels with these ids that take the notification (`Routing.admits`:
    /// enabled today), in the given order; deleted ones are skipped.
    func admitted(_ ids: [Int64], kind: EventKind, monitorID: Int64) -> [Channel] {
        let all = current
        return ids.compactMap { id in all.first { $0.id == id } }.filter { Routing.admits($0, kind: kind, monitorID: monitorID) }
    }

    /// `monitor_down` again to one step's channels, as the incident stands
    /// now; `eventID` is the incident's alert, so the rows count as its
    /// alert (follow-ups of paging services, the channel's history).
    /// Returns the rows queued.
    func queueStep(_ channels: [Channel], incident: IncidentRecord, eventID: Int64?, at now: Int64,
                   on c: Connection) throws(StoreError) -> Int {
        if channels.isEmpty { return 0 }
        var n = try notification(following: incident, at: now, on: c)
        n.publicURL = publicURL
        var queued = 0
        for ch in channels { queued += try queue(c, channel: ch, notification: n, eventID: eventID, now: now).count }
        return queued
    }

    /// The timeline's detail: "step 2: Telegram, Email".
    static func stepDetail(_ step: Int64, _ channels: [Channel]) -> String {
        "step \(step): " + (channels.isEmpty ? "no enabled channel" : channels.map(\.name).joined(separator: ", "))
    }

    /// Acknowledged or closed: the chain stops for good (its row stays, so
    /// `monitor_up` still finds the channels it alerted).
    func stopEscalation(_ incident: IncidentRecord, on c: Connection) throws(StoreError) {
        try Escalations.stop(c, incidentID: incident.id, now: Time.now())
    }
}
