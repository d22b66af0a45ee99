import Core
import Store

/// A maintenance window as the API accepts it.
public struct MaintenanceInput: Sendable {
    public var title: String
    public var monitorIDs: [Int64]
    /// Monitors with any of these tags are covered too (SPEC §12).
    public var tags: [String]
    public var startsAt: Int64
    public var endsAt: Int64
    public init(title: String, monitorIDs: [Int64], tags: [String] = [], startsAt: Int64, endsAt: Int64) {
        self.title = title
        self.monitorIDs = monitorIDs
        self.tags = tags
        self.startsAt = startsAt
        self.endsAt = endsAt
    }

    /// Validates a create body, or a PATCH merged onto `existing`.
    public static func parse(_ b: JSONFields, existing: MaintenanceRecord? = nil) throws(JSONFieldError) -> MaintenanceInput {
        let title = try b.string("title") ?? existing?.title ?? ""
        let trimmed = title.trimmingWhitespace()
        guard !trimmed.isEmpty, TextLimit.fits(trimmed, characters: 200) else {
            throw JSONFieldError(field: "title", message: "title is required, at most \(TextLimit.describe(characters: 200)).")
        }
        var ids: [Int64] = existing?.monitorIDs ?? []
        if b.has("monitor_ids") {
            guard let items = b.object["monitor_ids"]?.arrayValue else {
                throw JSONFieldError(field: "monitor_ids", message: "monitor_ids must be an array of monitor ids ([] = every monitor).")
            }
            ids = []
            for (i, item) in items.enumerated() {
                guard let id = item.intValue, id > 0 else {
                    throw JSONFieldError(field: "monitor_ids[\(i)]", message: "monitor_ids[\(i)] must be a monitor id.")
                }
                ids.append(id)
            }
        }
        let tags = b.has("tags") ? try MonitorTagRules.parse(b) : existing?.tags ?? []
        guard let starts = try b.time("starts_at") ?? existing?.startsAt else {
            throw JSONFieldError(field: "starts_at", message: "starts_at is required.")
        }
        guard let ends = try b.time("ends_at") ?? existing?.endsAt else {
            throw JSONFieldError(field: "ends_at", message: "ends_at is required.")
        }
        guard ends > starts else { throw JSONFieldError(field: "ends_at", message: "ends_at must be after starts_at.") }
        guard ends - starts <= 366 * 86_400 else {
            throw JSONFieldError(field: "ends_at", message: "a maintenance window lasts at most a year.")
        }
        return MaintenanceInput(title: trimmed, monitorIDs: Array(Set(ids)).sorted(), tags: tags, startsAt: starts, endsAt: ends)
    }
}

extension MonitoringService {
    public func createMaintenance(_ input: MaintenanceInput, by: String?) throws -> MaintenanceRecord {
        try checkMonitorsExist(input.monitorIDs)
        var record = MaintenanceRecord(title: input.title, monitorIDs: input.monitorIDs,
                                       startsAt: input.startsAt, endsAt: input.endsAt, createdBy: by)
        record.tags = input.tags
        let stored = try database.write { c in try MaintenanceWindows.insert(c, record, now: Time.now()) }
        try calendar.reload()
        return stored
    }

    public func updateMaintenance(id: Int64, _ input: MaintenanceInput) throws -> MaintenanceRecord {
        try checkMonitorsExist(input.monitorIDs)
        var record = MaintenanceRecord(title: input.title, monitorIDs: input.monitorIDs,
                                       startsAt: input.startsAt, endsAt: input.endsAt, createdBy: nil)
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
