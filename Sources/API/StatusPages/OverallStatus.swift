/// The one-line verdict at the top of a status page, from the displayed
/// statuses of its monitors (`up`, `degraded`, `down`, `maintenance`,
/// `paused`, `pending`). Pure and table-tested.
///
/// - Paused and pending monitors say nothing about the service: ignored.
/// - Any monitor down or degraded → an outage: "Major outage" when every
///   monitor that counts is down, else "Partial outage".
/// - No outage but a monitor in maintenance → "Maintenance".
/// - Otherwise (also: nothing to judge) → "All systems operational".
enum OverallStatus: String, Sendable {
    case operational
    case partialOutage = "partial_outage"
    case majorOutage = "major_outage"
    case maintenance

    var text: String {
        switch self {
        case .operational: "All systems operational"
        case .partialOutage: "Partial outage"
        case .majorOutage: "Major outage"
        case .maintenance: "Maintenance"
        }
    }

    static func of(_ statuses: [String]) -> OverallStatus {
        let counted = statuses.filter { $0 != "paused" && $0 != "pending" }
        let down = counted.filter { $0 == "down" }.count
        let degraded = counted.filter { $0 == "degraded" }.count
        if down > 0 && down == counted.count { return .majorOutage }
        if down + degraded > 0 { return .partialOutage }
        if counted.contains("maintenance") { return .maintenance }
        return .operational
    }
}
