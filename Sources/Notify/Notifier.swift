import Core
import Crypto
import Store
import Synchronization

/// The alerting side's `EventSink`: keeps the channels in memory (reloaded
/// on every channel write) and, inside the transaction that inserts an
/// event, writes one outbox row per matching channel. Each row's payload is
/// the fully built request, carrying the row's own id (`outbox-<id>`) as the
/// idempotency key.
public final class Notifier: EventSink {
    public let channels: ChannelCache
    public let hubName: String
    /// `server.public_url`, so notifications link back to the hub's pages
    /// (`Notification.pageURL`); empty = no links.
    public let publicURL: String
    /// The phones' side: per-phone rows of `mobile` channels and the Live
    /// Activity (nil: no phones, as in tests of other channels).
    let mobilePush: (any MobilePush)?
    /// Called after rows were queued (the delivery worker wakes up).
    let onQueued: @Sendable () -> Void
    let hubIDCache = Mutex<String?>(nil)

    public init(hubName: String = "pingtxt", publicURL: String = "", channels: ChannelCache = ChannelCache(),
                mobilePush: (any MobilePush)? = nil, onQueued: @escaping @Sendable () -> Void = {}) {
        self.hubName = hubName
        self.publicURL = publicURL
        self.channels = channels
        self.mobilePush = mobilePush
        self.onQueued = onQueued
    }

    /// Reloads the channel cache (after a channel write, in its transaction).
    public func reload(_ c: Connection) throws(StoreError) { try channels.reload(c) }

    public var current: [Channel] { channels.current }

    public func didInsert(_ event: EventRecord, on c: Connection) throws(StoreError) {
        guard let kind = EventKind(rawValue: event.kind) else { return }
        var template = try notification(for: event, kind: kind, on: c)
        // Every event is described for the events feed, the ones that
        // maintenance keeps quiet too (the feed lists them as silenced).
        let (title, body) = PushMessages.texts(template)
        try Events.describe(c, id: event.id, priority: Int64(template.priority), title: title, body: body)
        let routed = Routing.channels(for: kind, monitorID: event.monitorID, suppressed: event.suppressed, among: current)
        // Escalation starts with the alert (even a suppressed one: step 1
        // then waits for the maintenance window to end) and widens
        // `monitor_up` to every channel it alerted.
        let targets = try withEscalation(routed, for: event, kind: kind, on: c)
        if targets.isEmpty { return }
        template.hubID = try hubID(c)
        var queued = 0
        for ch in targets {
            queued += try queue(c, channel: ch, notification: template, eventID: event.id, now: event.at).count
        }
        if queued > 0 { onQueued() }
    }

    /// What every channel renders for `event`: names, times, the priority
    /// resolved from the monitor's own (`AlertPriority`), links and ids.
    func notification(for event: EventRecord, kind: EventKind, on c: Connection) throws(StoreError) -> Notification {
        var name = ""
        var since = event.at
        var monitorPriority: Int64?
        if let m = event.monitorID {
            let monitor = try Monitors.find(c, id: m)
            name = monitor?.name ?? "monitor \(m)"
            monitorPriority = monitor?.priority
        } else {
            // An event without a monitor is about an agent: its location names it.
            name = event.locations.first ?? "agent"
            if let agent = try Agents.find(c, name: name) {
                // Written before the agent's row changes status: offline → since
                // its last contact; online → since it went offline.
                since = kind == .agentOffline ? (agent.lastSeenAt ?? event.at) : agent.statusSince
            }
        }
        if let i = event.incidentID, let incident = try Incidents.find(c, id: i) { since = incident.openedAt }
        var n = Notification(kind: .alert, event: kind, monitorID: event.monitorID, monitorName: name, incidentID: event.incidentID,
                             cause: event.cause, locations: event.locations, at: event.at, since: since, outboxID: 0, hubName: hubName)
        n.publicURL = publicURL
        n.priority = AlertPriority.resolve(kind, monitorPriority: monitorPriority)
        n.eventID = event.id
        return n
    }

    /// Writes the outbox rows of one notification to one channel (one row,
    /// or one per phone for `mobile`); each payload names its own row id.
    /// Returns the row ids. Call inside a write transaction.
    @discardableResult
    public func queue(_ c: Connection, channel ch: Channel, notification: Notification, eventID: Int64?,
                      now: Int64) throws(StoreError) -> [Int64] {
        // Below the channel's floor nothing is written (the Test button is a
        // check of the channel itself and always goes out).
        guard Routing.accepts(ch, notification) else { return [] }
        if ch.type == .mobile {
            return try mobilePush?.queue(c, channel: ch, notification: notification, eventID: eventID, now: now) ?? []
        }
        var notification = notification
        if notification.hubID.isEmpty { notification.hubID = try hubID(c) }
        notification.acknowledgeURL = try acknowledgeLink(c, for: notification, channel: ch, now: now)
        let sender = ch.sender
        guard let probe = sender.outboxPayload(for: notification) else { return [] }
        let id = try Outbox.insert(c, OutboxRecord(channelID: ch.id, eventID: eventID, kind: notification.kind.rawValue,
                                                   transport: probe.transport, payload: "{}", nextAttemptAt: now), now: now) { id in
            var n = notification
            n.outboxID = id
            return sender.outboxPayload(for: n)?.text ?? "{}"
        }
        return [id]
    }

    /// How long an acknowledge link works at most (SPEC §10: while its
    /// incident is open, at most 7 days).
    static let ackLinkLifetime: Int64 = 7 * 86_400

    /// A new acknowledge link for a `monitor_down` message with an open
    /// incident, stored hashed and bound to that incident and channel; nil
    /// for other messages, or when the hub's public URL is not known (the
    /// link could not point anywhere).
    func acknowledgeLink(_ c: Connection, for n: Notification, channel ch: Channel, now: Int64) throws(StoreError) -> String? {
        guard n.event == .monitorDown, let incident = n.incidentID, !publicURL.isEmpty else { return nil }
        let (token, hash) = LinkToken.generate()
        try AckLinks.insert(c, tokenHash: hash, incidentID: incident, channelID: ch.id, channelName: ch.name, now: now,
                            expiresAt: now + Self.ackLinkLifetime)
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/ack/" + token
    }

    /// The hub's permanent id (`meta.hub_id`), read once; created here if
    /// start-up has not made it yet (callers are inside a write transaction).
    func hubID(_ c: Connection) throws(StoreError) -> String {
        if let id = hubIDCache.withLock({ $0 }) { return id }
        let id = try PushSettings.load(c).hubID
        hubIDCache.withLock { $0 = id }
        return id
    }

    public func incidentsChanged(monitorID: Int64, on c: Connection) throws(StoreError) {
        guard let push = mobilePush else { return }
        if try push.incidentsChanged(c, now: Time.now()) > 0 { onQueued() }
    }


}

/// What the notifier needs from the push side.
public protocol MobilePush: Sendable {
    /// Writes one `push` outbox row per phone that a `mobile` channel reaches.
    func queue(_ c: Connection, channel: Channel, notification: Notification, eventID: Int64?, now: Int64) throws(StoreError) -> [Int64]
    /// The set of open incidents changed: bring the Live Activities up to
    /// date. Returns how many rows it queued.
    func incidentsChanged(_ c: Connection, now: Int64) throws(StoreError) -> Int
}

extension Channel {
    /// A stored row, validated again.
    public init(record r: ChannelRecord) throws(JSONFieldError) {
        guard let type = ChannelType(rawValue: r.type) else {
            throw JSONFieldError(field: "type", message: "unknown channel type \(r.type)")
        }
        try self.init(id: r.id, name: r.name, type: type, enabled: r.enabled, events: r.events, monitorIDs: r.monitorIDs,
                      reminderMinutes: r.reminderMinutes, minPriority: r.minPriority, config: r.config)
    }
}
