import Core
import Store
import Synchronization

/// The maintenance windows that matter now and later, kept in memory so the
/// result path can ask "is this monitor in maintenance?" without a query.
/// Reloaded whenever a window is written.
public final class MaintenanceCalendar: Sendable {
    struct Window: Sendable {
        let id: Int64
        let monitors: MonitorSelection
        /// One-off or recurring: the occurrences decide (`MaintenanceSchedule`).
        let schedule: MaintenanceSchedule
        /// The last answer and the stretch it holds for (under the lock).
        var decided: MaintenanceSchedule.Decision?

        mutating func covers(_ monitorID: Int64, at t: Int64) -> Bool {
            guard monitors.contains(monitorID) else { return false }
            if let d = decided, d.covers(t) { return d.active }
            let d = schedule.decide(at: t)
            decided = d
            return d.active
        }
    }

    private let windows = Mutex<[Window]>([])
    private let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Loads every window that has not ended (relative to `now`, minus a day
    /// so late results still find theirs; a series counts until its end, or
    /// for ever), its tags resolved to monitors as
    /// they are tagged now. Monitor writes reload too (and every cluster
    /// beat), so a monitor tagged later is covered from then on.
    public func reload(now: Int64 = Time.now()) throws {
        let loaded = try database.read { c in
            try MaintenanceWindows.overlapping(c, from: now - 86_400, to: Int64.max / 2).map { r throws(StoreError) in
                Window(id: r.id, monitors: try MonitorSelection.of(c, r), schedule: MaintenanceSchedule(r), decided: nil)
            }
        }
        windows.withLock { $0 = loaded }
    }

    public func isInMaintenance(monitorID: Int64, at t: Int64) -> Bool {
        windows.withLock { ws in
            for i in ws.indices where ws[i].covers(monitorID, at: t) { return true }
            return false
        }
    }
}
