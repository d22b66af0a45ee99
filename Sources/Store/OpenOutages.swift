/// One open incident with its monitor's name (the Live Activity's rows).
public struct OpenOutage: Sendable, Equatable {
    public var incident: IncidentRecord
    public var monitorName: String
}

extension Incidents {
    /// Open incidents of `kind` on monitors that are not paused, longest open
    /// first (ties by incident id, so the order is stable).
    public static func openOutages(_ c: Connection, kind: String) throws(StoreError) -> [OpenOutage] {
        try c.query("""
            SELECT i.*, m.name AS monitor_name FROM incidents i JOIN monitors m ON m.id = i.monitor_id
            WHERE i.status = 'open' AND i.kind = ? AND m.paused = 0
            ORDER BY i.opened_at, i.id
            """, [.text(kind)]).map { r throws(StoreError) in
            OpenOutage(incident: try IncidentRecord(row: r), monitorName: try r.text("monitor_name"))
        }
    }
}
