import Store

/// The 0–10 priority of SPEC §10 and the one place that reads a monitor's
/// own priority. Whoever builds a `Notification` asks `resolve` once; each
/// channel type then maps `Notification.priority` onto its own levels
/// (push, ntfy, pushover, gotify, pagerduty, opsgenie: docs/notifications.md
/// "Priority"), so a queued notification keeps the priority it was built
/// with even if the monitor changes while it waits for a retry.
public enum AlertPriority {
    public static let range: ClosedRange<Int64> = 0...10

    /// The defaults per event; nil is a test notification.
    public static func standard(_ event: EventKind?) -> Int {
        switch event {
        case .monitorDown?, .agentOffline?: 8
        case .monitorDegraded?: 6
        case .expiry?, .message?: 5
        case .monitorUp?, .agentOnline?: 4
        case nil: 1
        }
    }

    /// The priority of `event` on a monitor whose own priority is
    /// `monitorPriority` (nil = the defaults): it replaces the default of
    /// the monitor's alerts (down, degraded, expiry), and `monitor_up`, the
    /// all-clear, is never louder than an ordinary up: `min(4, priority)`.
    /// Agent events and tests have no monitor and keep their defaults.
    public static func resolve(_ event: EventKind?, monitorPriority: Int64?) -> Int {
        guard let own = monitorPriority.map({ Int(min(max($0, range.lowerBound), range.upperBound)) }) else {
            return standard(event)
        }
        switch event {
        case .monitorDown?, .monitorDegraded?, .expiry?: return own
        case .monitorUp?: return min(standard(.monitorUp), own)
        // A message carries the priority its sender chose (set after this).
        case .agentOffline?, .agentOnline?, .message?, nil: return standard(event)
        }
    }

    /// What the channel types map from.
    static func of(_ n: Notification) -> Int { n.priority }
}
