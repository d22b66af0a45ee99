/// The notification events a monitor produces (SPEC §6; the agent events
/// live elsewhere).
public enum EventKind: String, Sendable, Equatable, CaseIterable {
    case monitorDown = "monitor_down"
    case monitorUp = "monitor_up"
    case monitorDegraded = "monitor_degraded"
    case expiry
}
