import Core
import Store

/// `GET /api/events` (SPEC §10): every event the hub raised, oldest first,
/// as the app shows what it missed. Title, body and priority are what the
/// alert said when it was raised (`Events.describe`, written in the
/// event's transaction); the link is built from the hub's public URL now,
/// so a hub that moved links to where it is. Events from before the feed
/// existed have no stored text: they get the defaults and the monitor's
/// current name.
public struct EventFeed: Sendable {
    let database: Database
    let publicURL: String

    public init(database: Database, publicURL: String) {
        self.database = database
        self.publicURL = publicURL
    }

    /// Up to `limit` events with an id above `afterID`, oldest first.
    public func items(afterID: Int64, limit: Int) throws -> [(id: Int64, json: JSON)] {
        try database.read { c in
            try Events.list(c, monitorID: nil, afterID: afterID, limit: limit).map { e throws(StoreError) in
                (e.id, try item(e, on: c))
            }
        }
    }

    func item(_ e: EventRecord, on c: Connection) throws(StoreError) -> JSON {
        let kind = EventKind(rawValue: e.kind)
        let isAgent = kind == .agentOffline || kind == .agentOnline
        var title = e.title, body = e.body
        if title == nil || body == nil {
            var name = e.locations.first ?? "agent"
            if !isAgent, let m = e.monitorID { name = try Monitors.find(c, id: m)?.name ?? "monitor \(m)" }
            let n = Notification(kind: .alert, event: kind, monitorID: e.monitorID, monitorName: name, incidentID: e.incidentID,
                                 cause: e.cause, locations: e.locations, at: e.at, since: e.at, outboxID: 0)
            (title, body) = PushMessages.texts(n)
        }
        let priority = e.priority ?? Int64(AlertPriority.standard(kind))
        // A message links where its sender said (its row keeps the link).
        let messageURL = kind == .message ? try Messages.find(c, eventID: e.id)?.url : nil
        return .object(JSONObject([
            ("id", .int(e.id)), ("event", .string(e.kind)), ("at", .time(e.at)), ("monitor_id", .from(e.monitorID)),
            ("incident_id", .from(e.incidentID)), ("agent", isAgent ? .from(e.locations.first) : .null),
            ("title", .from(title)), ("body", .from(body)), ("priority", .int(priority)),
            ("url", .from(Notification.pageURL(publicURL: publicURL, event: kind, monitorID: e.monitorID, incidentID: e.incidentID,
                                                  messageURL: messageURL))),
            ("silenced", .bool(e.suppressed)),
        ]))
    }
}
