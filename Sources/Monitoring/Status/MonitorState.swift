/// The persisted state of one monitor's status logic.
public struct MonitorState: Sendable, Equatable {
    public var status: MonitorStatus
    /// When `status` last changed (Unix seconds).
    public var statusSince: Int64
    /// Per location name. Entries for locations no longer in the policy are
    /// kept (the location may come back online) but not counted.
    public var locations: [String: LocationState]
    /// The incident kinds currently open for this monitor (at most one of each).
    public var openIncidents: Set<IncidentKind>
    /// The certificate `notAfter` last seen (to note a changed certificate on an open `expiry` incident).
    public var certNotAfter: Int64?

    public init(status: MonitorStatus, statusSince: Int64, locations: [String: LocationState] = [:],
                openIncidents: Set<IncidentKind> = [], certNotAfter: Int64? = nil) {
        self.status = status
        self.statusSince = statusSince
        self.locations = locations
        self.openIncidents = openIncidents
        self.certNotAfter = certNotAfter
    }

    /// A new (or resumed) monitor: `pending`, no history.
    public static func new(at time: Int64) -> MonitorState {
        MonitorState(status: .pending, statusSince: time)
    }
}
