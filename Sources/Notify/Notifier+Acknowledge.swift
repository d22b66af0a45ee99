import Core
import Store

extension Notifier {
    /// An incident was acknowledged on the hub (SPEC §6: pagerduty
    /// `acknowledge`, opsgenie `/acknowledge`): each enabled channel whose
    /// type follows acknowledgements (`IncidentAcknowledging`) and that was
    /// sent an alert for this incident gets one outbox row that acknowledges
    /// the service's alert, so the service's own escalation stops too.
    /// Called inside the acknowledgement's write transaction; other channel
    /// types get nothing (their reminders simply stop).
    public func incidentAcknowledged(_ incident: IncidentRecord, by: String, on c: Connection) throws(StoreError) {
        let followers = current.filter { $0.enabled && $0.sender is any IncidentAcknowledging }
        if followers.isEmpty { return }
        let now = Time.now()
        var template: Notification?
        var queued = 0
        for ch in followers {
            guard let sender = ch.sender as? any IncidentAcknowledging,
                  try Outbox.alerted(c, channelID: ch.id, incidentID: incident.id) else { continue }
            if template == nil { template = try notification(acknowledging: incident, at: now, on: c) }
            guard let n = template else { continue }
            guard sender.acknowledgeRequest(for: n, by: by) != nil else { continue }
            // Kind `alert` without an event: the row belongs to the alert it
            // follows up on (the outbox's kinds are fixed by its CHECK).
            _ = try Outbox.insert(c, OutboxRecord(channelID: ch.id, eventID: nil, kind: Notification.Kind.alert.rawValue,
                                                  transport: "http", payload: "{}", nextAttemptAt: now), now: now) { id in
                var m = n
                m.outboxID = id
                guard var r = sender.acknowledgeRequest(for: m, by: by) else { return "{}" }
                r.service = ch.type.rawValue
                return r.storedText
            }
            queued += 1
        }
        if queued > 0 { onQueued.withLock { $0 }?() }
    }

    /// The incident as the paging services' builders read it: its alert's
    /// event, monitor, cause and locations, `since` its opening.
    func notification(acknowledging i: IncidentRecord, at now: Int64, on c: Connection) throws(StoreError) -> Notification {
        let event: EventKind = switch i.kind {
        case "degraded": .monitorDegraded
        case "expiry": .expiry
        default: .monitorDown
        }
        let name = try Monitors.find(c, id: i.monitorID)?.name ?? "monitor \(i.monitorID)"
        let locations = ((try? JSON.parse(i.locations))?.arrayValue ?? []).compactMap(\.stringValue)
        return Notification(kind: .alert, event: event, monitorID: i.monitorID, monitorName: name, incidentID: i.id, cause: i.cause,
                            locations: locations, at: now, since: i.openedAt, outboxID: 0, hubName: hubName, hubID: try hubID(c))
    }
}
