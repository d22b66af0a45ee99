import Store
/// Timeline `event` names used in `Effect.timeline`.
public enum TimelineEvent {
    public static let opened = "opened"
    public static let closed = "closed"
    /// The cause of an open `down` incident changed (detail: the new cause).
    public static let stillDown = "still_down"
    /// A location started / stopped seeing an open `down` incident's monitor down.
    public static let locationDown = "location_down"
    public static let locationUp = "location_up"
    /// A location started seeing an open `degraded` incident's monitor degraded
    /// (`location_up` when it stops).
    public static let locationDegraded = "location_degraded"
    /// An open `expiry` incident now sees a different certificate, still within the threshold.
    public static let certificateChanged = "certificate_changed"
    /// Dependencies (SPEC §12): the `monitor_down` waits for the parents'
    /// results; the hold ended with the incident suppressed by a parent that
    /// is down, or with the alert sent (`alerted`); a suppressing parent
    /// recovered, so the monitor's next result decides.
    public static let held = "held"
    public static let suppressed = "suppressed"
    public static let alerted = "alerted"
    public static let parentRecovered = "parent_recovered"
    /// Recorded by the API, never by the state machine.
    public static let acknowledged = "acknowledged"
}

/// What the caller must do after an `apply` (persist, notify). Effects come in
/// a fixed order; see `StateMachine`.
public enum Effect: Sendable, Equatable {
    case statusChanged(from: MonitorStatus, to: MonitorStatus)
    case openIncident(kind: IncidentKind, cause: String, locations: [String])
    /// `reason`: "recovered", "paused", "certificate renewed", …
    case closeIncident(kind: IncidentKind, reason: String)
    /// A timeline entry on the open incident of that kind (see `TimelineEvent`).
    case timeline(kind: IncidentKind, event: String, detail: String)
    /// A notification; `suppressed` = the monitor is in maintenance (record, don't send).
    case event(kind: EventKind, cause: String, locations: [String], suppressed: Bool)
}
