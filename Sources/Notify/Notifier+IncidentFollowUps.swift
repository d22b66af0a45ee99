import Core
import Store

/// Follow-ups for the paging services (`IncidentFollowing`: pagerduty,
/// opsgenie), so an alert there lives exactly as long as the hub's
/// incident. Each runs inside the transaction that acknowledges or closes
/// the incident, so its rows exist exactly when that change does.
extension Notifier {
    /// The kinds of event whose row means "this channel was alerted".
    static let alertKinds = [EventKind.monitorDown, .monitorDegraded, .expiry].map(\.rawValue)

    /// Acknowledged on the hub: its escalation stops, and each enabled following channel that was
    /// alerted for the incident gets one row acknowledging the service's
    /// alert, so the service's own escalation stops too. Other channel types
    /// get nothing (their reminders simply stop).
    public func incidentAcknowledged(_ incident: IncidentRecord, by: String, on c: Connection) throws(StoreError) {
        try stopEscalation(incident, on: c)
        try followUp(incident, on: c) { sender, n in sender.acknowledgeRequest(for: n, by: by) }
    }

    /// Closed on the hub: its escalation stops, and each enabled following
    /// channel that was alerted for the incident and was not queued its
    /// `monitor_up` (the monitor was paused or recovered during maintenance,
    /// a degraded incident became a down one, a certificate was renewed, or
    /// the channel does not take `monitor_up`) gets one row resolving the
    /// alert; without it the alert would stay open on the service for good.
    public func incidentClosed(_ incident: IncidentRecord, reason: String, on c: Connection) throws(StoreError) {
        try stopEscalation(incident, on: c)
        try followUp(incident, on: c, unless: [EventKind.monitorUp.rawValue]) { sender, n in
            sender.resolveRequest(for: n, reason: reason)
        }
    }

    /// One row per enabled following channel alerted for `incident` (and
    /// not already sent an event of `unless` for it), built by `build`.
    func followUp(_ incident: IncidentRecord, on c: Connection, unless done: [String] = [],
                  build: @escaping (any IncidentFollowing, Notification) -> OutboundRequest?) throws(StoreError) {
        let followers = current.filter { $0.enabled && $0.sender is any IncidentFollowing }
        if followers.isEmpty { return }
        let now = Time.now()
        var template: Notification?
        var queued = 0
        for ch in followers {
            guard let sender = ch.sender as? any IncidentFollowing,
                  try Outbox.announced(c, channelID: ch.id, incidentID: incident.id, eventKinds: Self.alertKinds),
                  try !Outbox.announced(c, channelID: ch.id, incidentID: incident.id, eventKinds: done) else { continue }
            if template == nil { template = try notification(following: incident, at: now, on: c) }
            guard let n = template, build(sender, n) != nil else { continue }
            // Kind `alert` without an event: the row belongs to the alert it
            // follows up on (the outbox's kinds are fixed by its CHECK).
            _ = try Outbox.insert(c, OutboxRecord(channelID: ch.id, eventID: nil, kind: Notification.Kind.alert.rawValue,
                                                  transport: "http", payload: "{}", nextAttemptAt: now), now: now) { id in
                var m = n
                m.outboxID = id
                guard var r = build(sender, m) else { return "{}" }
                r.service = ch.type.rawValue
                return r.storedText
            }
            queued += 1
        }
        if queued > 0 { onQueued() }
    }

    /// The incident as the paging services' builders read it: its alert's
    /// event, monitor, cause and locations, `since` its opening.
    func notification(following i: IncidentRecord, at now: Int64, on c: Connection) throws(StoreError) -> Notification {
        let event: EventKind = switch i.kind {
        case "degraded": .monitorDegraded
        case "expiry": .expiry
        default: .monitorDown
        }
        let name = try Monitors.find(c, id: i.monitorID)?.name ?? "monitor \(i.monitorID)"
        return Notification(kind: .alert, event: event, monitorID: i.monitorID, monitorName: name, incidentID: i.id, cause: i.cause,
                            locations: i.locations, at: now, since: i.openedAt, outboxID: 0, hubName: hubName, hubID: try hubID(c))
    }
}
