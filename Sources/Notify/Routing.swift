import Store
/// Which channels an event goes to (pure). Suppressed events (raised during
/// maintenance) go nowhere; otherwise each enabled channel whose `events`
/// include the kind and whose `monitor_ids` is empty or contains the monitor.
/// Test notifications bypass this: they go to the one channel asked.
public enum Routing {
    public static func channels(for kind: EventKind, monitorID: Int64?, suppressed: Bool, among channels: [Channel]) -> [Channel] {
        if suppressed { return [] }
        return channels.filter { matches($0, kind: kind, monitorID: monitorID) }
    }

    /// Whether `n` is loud enough for the channel: at or above its
    /// `min_priority` (SPEC §10), or a test, which ignores it.
    public static func accepts(_ c: Channel, _ n: Notification) -> Bool {
        n.kind == .test || Int64(n.priority) >= c.minPriority
    }

    /// Whether the channel routes the event itself: it takes it (`admits`)
    /// and subscribes to it (`events`, `monitor_ids`).
    public static func matches(_ c: Channel, kind: EventKind, monitorID: Int64?) -> Bool {
        guard admits(c, kind: kind, monitorID: monitorID), c.events.contains(kind) else { return false }
        if c.monitorIDs.isEmpty { return true }
        guard let monitorID else { return false }
        return c.monitorIDs.contains(monitorID)
    }

    /// Whether the channel takes a notification at all, subscribed or not:
    /// the one per-channel filter that every delivery passes, alerts,
    /// reminders and escalation steps alike (an escalation step reaches its
    /// channels whatever their `events` and `monitor_ids` say, SPEC §10,
    /// but never a disabled channel). Today that is `enabled`.
    public static func admits(_ c: Channel, kind: EventKind, monitorID: Int64?) -> Bool {
        c.enabled
    }
}
