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
