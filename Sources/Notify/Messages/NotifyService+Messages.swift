import Core
import Store

/// `POST /api/messages` (SPEC §15): a person's message through the same
/// outbox as the alerts. One transaction writes the `message` event, the
/// `messages` row and the outbox rows, so the message is in the events feed
/// exactly when it was queued. Priority, each channel's `min_priority`
/// (`Notifier.queue`) and, at sending time, quiet hours apply as to an
/// alert; a message about a monitor in maintenance or muted is recorded as
/// silenced and sent nowhere. It opens no incident, so nothing reminds of
/// it and nothing escalates it.
extension NotifyService {
    public func send(_ input: MessageInput, by userID: Int64?) throws -> MessageRecord {
        let now = Time.now()
        let (record, queued) = try database.write { c -> (MessageRecord, Int) in
            var monitorName = ""
            if let m = input.monitorID {
                guard let monitor = try Monitors.find(c, id: m) else {
                    throw JSONFieldError(field: "monitor_id", message: "There is no monitor \(m).")
                }
                monitorName = monitor.name
            }
            let all = notifier.current
            for (i, id) in input.channelIDs.enumerated() where !all.contains(where: { $0.id == id }) {
                throw JSONFieldError(field: "channel_ids", message: "channel_ids[\(i)]: there is no channel \(id).")
            }
            let silenced = input.monitorID.map { isQuiet($0, at: now) } ?? false
            var event = EventRecord(kind: EventKind.message.rawValue, monitorID: input.monitorID, incidentID: nil, at: now,
                                    cause: "", locations: [], suppressed: silenced)
            event.id = try Events.insert(c, event)
            var n = notifier.message(input, eventID: event.id, monitorName: monitorName, at: now)
            n.hubID = try notifier.hubID(c)
            try Events.describe(c, id: event.id, priority: input.priority, title: input.title, body: input.body)
            let targets = Self.targets(input, among: all, silenced: silenced)
            var record = MessageRecord(eventID: event.id, title: input.title, body: input.body, priority: input.priority,
                                       url: input.url, monitorID: input.monitorID, channelIDs: [], createdBy: userID, createdAt: now)
            var count = 0
            for ch in targets {
                let rows = try notifier.queue(c, channel: ch, notification: n, eventID: event.id, now: now)
                if !rows.isEmpty { record.channelIDs.append(ch.id) }
                count += rows.count
            }
            record.id = try Messages.insert(c, record)
            return (record, count)
        }
        if queued > 0 { worker.wake() }
        return record
    }

    /// Named channels get it whatever their `events` and `monitor_ids` say
    /// (being named is the subscription), if enabled; no names: every
    /// enabled channel subscribed to `message` (and, when `monitor_ids`
    /// limits it, only messages about those monitors). Silenced: none.
    static func targets(_ input: MessageInput, among all: [Channel], silenced: Bool) -> [Channel] {
        if silenced { return [] }
        if input.channelIDs.isEmpty {
            return Routing.channels(for: .message, monitorID: input.monitorID, suppressed: false, among: all)
        }
        return input.channelIDs.compactMap { id in all.first { $0.id == id } }
            .filter { Routing.admits($0, kind: .message, monitorID: input.monitorID) }
    }
}

extension Notifier {
    /// What every channel renders for a message: the sender's texts and
    /// link, the monitor's name when it is about one.
    func message(_ input: MessageInput, eventID: Int64, monitorName: String, at: Int64) -> Notification {
        var n = Notification(kind: .alert, event: .message, monitorID: input.monitorID, monitorName: monitorName, incidentID: nil,
                             cause: "", locations: [], at: at, since: at, outboxID: 0, hubName: hubName)
        n.publicURL = publicURL
        n.priority = Int(input.priority)
        n.eventID = eventID
        n.message = Notification.Message(title: input.title, body: input.body, url: input.url)
        return n
    }
}
