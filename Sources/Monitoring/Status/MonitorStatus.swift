/// A monitor's status as shown by the API (`status` of the monitor object).
public enum MonitorStatus: String, Sendable, Equatable, CaseIterable {
    case pending, up, degraded, down, paused
}
