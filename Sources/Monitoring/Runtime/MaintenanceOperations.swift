import Core
import Store

extension MonitoringService {
    public func createMaintenance(_ input: MaintenanceInput, by: String?) throws -> MaintenanceRecord {
        try checkMonitorsExist(input.monitorIDs)
        var record = MaintenanceRecord(title: input.title, monitorIDs: input.monitorIDs, startsAt: input.startsAt,
                                       endsAt: input.endsAt, createdBy: by, recurrence: input.recurrence)
        record.tags = input.tags
        let stored = try database.write { c in try MaintenanceWindows.insert(c, record, now: Time.now()) }
        try calendar.reload()
        return stored
    }

    public func updateMaintenance(id: Int64, _ input: MaintenanceInput) throws -> MaintenanceRecord {
        try checkMonitorsExist(input.monitorIDs)
        var record = MaintenanceRecord(title: input.title, monitorIDs: input.monitorIDs, startsAt: input.startsAt,
                                       endsAt: input.endsAt, createdBy: nil, recurrence: input.recurrence)
        record.id = id
        record.tags = input.tags
        guard let stored = try database.write({ c in try MaintenanceWindows.update(c, record) }) else {
            throw MonitoringError.notFound("No maintenance window with id \(id).")
        }
        try calendar.reload()
        return stored
    }

    public func deleteMaintenance(id: Int64) throws {
        guard try database.write({ c in try MaintenanceWindows.delete(c, id: id) }) else {
            throw MonitoringError.notFound("No maintenance window with id \(id).")
        }
        try calendar.reload()
    }

    /// "Mute for N minutes": a window for one monitor from now.
    public func mute(monitorID: Int64, minutes: Int64, by: String?) throws -> MaintenanceRecord {
        let monitor = try find(monitorID)
        let now = Time.now()
        return try createMaintenance(MaintenanceInput(title: "Muted \(monitor.name) for \(minutes) min", monitorIDs: [monitorID],
                                                      startsAt: now, endsAt: now + minutes * 60), by: by)
    }

    public func isInMaintenance(_ monitorID: Int64, at: Int64 = Time.now()) -> Bool {
        calendar.isInMaintenance(monitorID: monitorID, at: at)
    }

    func checkMonitorsExist(_ ids: [Int64]) throws {
        for id in ids where registry.get(id) == nil {
            throw MonitoringError.notFound("No monitor with id \(id) (monitor_ids).")
        }
    }
}
