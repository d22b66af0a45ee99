/// What `/metrics` needs of one monitor (SPEC §13): its labels, whether it
/// is paused, its status, where it is checked from, the state machine's
/// per-location view (JSON) and the certificate's expiry.
public struct MonitorMetricRow: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var type: String
    public var target: String?
    public var retries: Int64
    public var paused: Bool
    public var status: String
    public var locations: [String]
    public var state: String
    public var certNotAfter: Int64?

    public init(id: Int64, name: String, type: String, target: String?, retries: Int64, paused: Bool, status: String,
                locations: [String], state: String, certNotAfter: Int64?) {
        (self.id, self.name, self.type, self.target, self.retries, self.paused) = (id, name, type, target, retries, paused)
        (self.status, self.locations, self.state, self.certNotAfter) = (status, locations, state, certNotAfter)
    }
}

extension Monitors {
    /// Every monitor's metric columns in one statement: a scrape of a hub
    /// with 100k monitors is one sequential read of `monitors`, no query per
    /// monitor (the per-location latest results live in `monitors.state`).
    public static func metricRows(_ c: Connection) throws(StoreError) -> [MonitorMetricRow] {
        try c.query("""
            SELECT id, name, type, target, retries, paused, status, locations, state, cert_not_after FROM monitors ORDER BY id
            """).map { r throws(StoreError) in
            MonitorMetricRow(id: try r.int("id"), name: try r.text("name"), type: try r.text("type"), target: try r.optionalText("target"),
                             retries: try r.int("retries"),
                             paused: try r.bool("paused"), status: try r.text("status"),
                             locations: try r.stringArray("locations", table: "monitors"), state: try r.text("state"),
                             certNotAfter: try r.optionalInt("cert_not_after"))
        }
    }
}
