// The value types of the pure status logic (SPEC §5, §6). Everything here is
// plain data: no clock, no I/O. Times are Unix seconds (`Int64`).

/// A monitor's status as shown by the API (`status` of the monitor object).
public enum MonitorStatus: String, Sendable, Equatable, CaseIterable {
    case pending, up, degraded, down, paused
}

/// The `kind` of an incident.
public enum IncidentKind: String, Sendable, Equatable, Hashable, CaseIterable {
    case down, degraded, expiry
}

/// The notification events a monitor produces (SPEC §6; the agent events
/// live elsewhere).
public enum EventKind: String, Sendable, Equatable, CaseIterable {
    case monitorDown = "monitor_down"
    case monitorUp = "monitor_up"
    case monitorDegraded = "monitor_degraded"
    case expiry
}

/// The raw verdict of one check at one location. `degraded` is not an
/// outcome: it is derived from latency by the state machine.
public enum CheckOutcome: String, Sendable, Equatable {
    case up, down
}

/// One check's result at one location.
public struct CheckResult: Sendable, Equatable {
    /// Unix seconds.
    public var at: Int64
    public var location: String
    public var outcome: CheckOutcome
    public var latencyMs: Int?
    public var statusCode: Int?
    public var error: String?
    /// The certificate's `notAfter` (Unix seconds) when the check saw one.
    public var certNotAfter: Int64?
    /// The start in Unix milliseconds when the checker reported it (agents
    /// do); stored as is, so a retried upload is recognised. nil = `at`·1000.
    public var atMs: Int64?

    public init(at: Int64, location: String = "hub", outcome: CheckOutcome, latencyMs: Int? = nil,
                statusCode: Int? = nil, error: String? = nil, certNotAfter: Int64? = nil, atMs: Int64? = nil) {
        self.at = at
        self.location = location
        self.outcome = outcome
        self.latencyMs = latencyMs
        self.statusCode = statusCode
        self.error = error
        self.certNotAfter = certNotAfter
        self.atMs = atMs
    }
}

/// The parts of a monitor's configuration the state machine needs, as they
/// are *now* (the caller rebuilds it from the monitor row and the set of
/// online locations before each `apply`).
public struct MonitorPolicy: Sendable, Equatable {
    /// Consecutive failed (or slow) checks tolerated at a location before it
    /// sees the monitor down (or degraded). Heartbeats pass 0.
    public var retries: Int
    /// A successful check slower than this (strictly) counts as slow; nil = never degraded.
    public var degradedAfterMs: Int?
    /// Open an `expiry` incident when the certificate expires in less than this many days; nil = off.
    public var certExpiryDays: Int?
    /// How many locations must see it down (clamped to 1…`locations.count`).
    public var confirmLocations: Int
    /// The monitor's online locations now; results from any other location are ignored.
    public var locations: [String]
    /// Per location, when it last went offline: its view counts only from a
    /// result at or after that time, so an agent back from offline is not
    /// judged on what it saw before (its old view is forgotten until it
    /// reports again). Locations not listed (the hub) always count.
    public var countedSince: [String: Int64]

    public init(retries: Int = 0, degradedAfterMs: Int? = nil, certExpiryDays: Int? = nil,
                confirmLocations: Int = 1, locations: [String] = ["hub"], countedSince: [String: Int64] = [:]) {
        self.retries = retries
        self.degradedAfterMs = degradedAfterMs
        self.certExpiryDays = certExpiryDays
        self.confirmLocations = confirmLocations
        self.locations = locations
        self.countedSince = countedSince
    }
}

/// What one location has seen of a monitor.
public struct LocationState: Sendable, Equatable {
    /// The outcome of its latest accepted result; nil before the first.
    public var outcome: CheckOutcome?
    /// Failed checks in a row (a success resets it).
    public var consecutiveFailures: Int
    /// Slow successful checks in a row (a fast success resets it; a failure leaves it alone).
    public var consecutiveSlow: Int
    /// Time of its latest accepted result; older results are ignored.
    public var lastAt: Int64?
    /// The cause text of its latest failure ("HTTP 503", "connection refused"); nil after a success.
    public var lastError: String?
    /// Latency of its latest successful check (for the `degraded` cause text).
    public var lastLatencyMs: Int?

    public init(outcome: CheckOutcome? = nil, consecutiveFailures: Int = 0, consecutiveSlow: Int = 0,
                lastAt: Int64? = nil, lastError: String? = nil, lastLatencyMs: Int? = nil) {
        self.outcome = outcome
        self.consecutiveFailures = consecutiveFailures
        self.consecutiveSlow = consecutiveSlow
        self.lastAt = lastAt
        self.lastError = lastError
        self.lastLatencyMs = lastLatencyMs
    }
}

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

/// An input to the state machine.
public enum MonitorInput: Sendable, Equatable {
    case result(CheckResult)
    case pause(at: Int64)
    case resume(at: Int64)
}
