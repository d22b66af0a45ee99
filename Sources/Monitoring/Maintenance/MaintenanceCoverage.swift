import Store

/// One maintenance window that overlaps a range, with the monitors it
/// covers: the read that uptime, the daily bars and SLA reports share
/// (`MaintenanceWindows.overlapping` + `MonitorSelection.of`). Its time in
/// the range comes from `MaintenanceSchedule` on demand, so a caller that
/// keeps only the windows of one monitor expands no other window's
/// occurrences.
struct MaintenanceCoverage {
    let window: MaintenanceRecord
    let monitors: MonitorSelection

    static func overlapping(_ c: Connection, from: Int64, to: Int64) throws(StoreError) -> [MaintenanceCoverage] {
        try MaintenanceWindows.overlapping(c, from: from, to: to).map { w throws(StoreError) in
            MaintenanceCoverage(window: w, monitors: try MonitorSelection.of(c, w))
        }
    }

    /// The window's time in `[from, to)`: the one-off interval or each
    /// occurrence of a recurring one, clipped and merged.
    func intervals(from: Int64, to: Int64) -> [(start: Int64, end: Int64)] {
        MaintenanceSchedule(window).intervals(from: from, to: to).map { (start: $0.start, end: $0.end) }
    }
}
