import Core
import Store

/// Maintenance a status page announces (SPEC §12): for each window that
/// covers any of the page's monitors, its occurrence in progress or else its
/// next one, when that starts within the horizon.
public struct UpcomingMaintenance: Sendable, Equatable {
    public var windowID: Int64
    public var title: String
    public var start: Int64
    public var end: Int64
    public var active: Bool
    public var recurring: Bool
    /// The given monitors it covers, in the given order.
    public var monitorIDs: [Int64]
}

extension MonitoringService {
    /// What public status pages list: the next 7 days, at most 20 entries.
    public static let upcomingMaintenanceHorizon: Int64 = 7 * 86_400
    public static let upcomingMaintenanceLimit = 20

    /// Soonest first. One entry per window (a daily window shows its next
    /// occurrence, not seven), so the list stays short.
    public func upcomingMaintenance(monitorIDs: [Int64], now: Int64 = Time.now(),
                                    horizon: Int64 = MonitoringService.upcomingMaintenanceHorizon) throws -> [UpcomingMaintenance] {
        guard !monitorIDs.isEmpty else { return [] }
        let out = try database.read { c in
            try MaintenanceWindows.overlapping(c, from: now, to: now + horizon).compactMap { w throws(StoreError) -> UpcomingMaintenance? in
                let selection = try MonitorSelection.of(c, w)
                let covered = monitorIDs.filter(selection.contains)
                let schedule = MaintenanceSchedule(w)
                guard !covered.isEmpty, let next = schedule.currentOrNext(at: now), next.start < now + horizon else { return nil }
                return UpcomingMaintenance(windowID: w.id, title: w.title, start: next.start, end: next.end,
                                           active: next.contains(now), recurring: schedule.isRecurring, monitorIDs: covered)
            }
        }
        return Array(out.sorted { ($0.start, $0.windowID) < ($1.start, $1.windowID) }.prefix(Self.upcomingMaintenanceLimit))
    }
}
