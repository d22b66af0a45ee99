/// The columns of `monitors` a public status page draws, and the target
/// (only to redact it from incident causes). A full `MonitorRecord` has
/// 30 columns and a settings document to parse; for a 1,000-monitor page
/// that was about a seventh of the page's time, and on PostgreSQL every
/// column crosses the socket as text.
public struct PublicMonitorRow: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var target: String?
    public var status: String
    public var statusSince: Int64
    public var paused: Bool

    static let columns = "id, name, target, status, status_since, paused"

    init(row r: Row) throws(StoreError) {
        id = try r.int("id")
        name = try r.text("name")
        target = try r.optionalText("target")
        status = try r.text("status")
        statusSince = try r.int("status_since")
        paused = try r.bool("paused")
    }
}
