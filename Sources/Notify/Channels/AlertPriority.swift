/// The 0–10 priority of SPEC §10 that pagerduty, opsgenie, pushover and
/// gotify map onto their own levels. Today it is the event's default; this
/// is the one place to read a monitor's own priority once notifications
/// carry it (a later issue), and every mapping below follows.
enum AlertPriority {
    static func of(_ n: Notification) -> Int {
        switch n.event {
        case .monitorDown?, .agentOffline?: 8
        case .monitorDegraded?: 6
        case .expiry?: 5
        case .monitorUp?, .agentOnline?: 4
        case nil: 1
        }
    }
}
