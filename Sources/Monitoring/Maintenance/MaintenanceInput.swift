import Core
import Store

/// A maintenance window as the API accepts it (SPEC §5, §12).
///
/// - One-off: `starts_at` and `ends_at` required, at most a year apart.
/// - Recurring (`recurrence` given): `starts_at` is the series' start (the
///   first occurrence is the first fire time at or after it), `ends_at` the
///   series' end, or null / left out for no end.
public struct MaintenanceInput: Sendable {
    public var title: String
    public var monitorIDs: [Int64]
    /// Monitors with any of these tags are covered too (SPEC §12).
    public var tags: [String]
    public var startsAt: Int64
    public var endsAt: Int64?
    public var recurrence: MaintenanceRecord.Recurrence?
    public init(title: String, monitorIDs: [Int64], tags: [String] = [], startsAt: Int64, endsAt: Int64?,
                recurrence: MaintenanceRecord.Recurrence? = nil) {
        self.title = title
        self.monitorIDs = monitorIDs
        self.tags = tags
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.recurrence = recurrence
    }

    public static let durationMinutes: ClosedRange<Int64> = 1...10_080

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
        let recurrence = b.has("recurrence") ? try parseRecurrence(b) : existing?.recurrence
        guard let starts = try b.time("starts_at") ?? existing?.startsAt else {
            throw JSONFieldError(field: "starts_at", message: "starts_at is required.")
        }
        // PATCH: `"ends_at": null` clears it; left out keeps the stored one.
        let ends = b.has("ends_at") ? try b.time("ends_at") : existing?.endsAt
        if let ends, ends <= starts {
            throw JSONFieldError(field: "ends_at", message: "ends_at must be after starts_at.")
        }
        if let recurrence {
            let schedule = MaintenanceSchedule(MaintenanceRecord(title: trimmed, monitorIDs: ids, startsAt: starts, endsAt: ends,
                                                                 createdBy: nil, recurrence: recurrence))
            guard schedule.nextStart(after: starts - 1) != nil else {
                throw JSONFieldError(field: "recurrence.cron",
                                     message: "recurrence.cron has no occurrence between starts_at and ends_at.")
            }
        } else {
            guard let ends else {
                throw JSONFieldError(field: "ends_at", message: "ends_at is required (it may be null only with a recurrence).")
            }
            guard ends - starts <= 366 * 86_400 else {
                throw JSONFieldError(field: "ends_at", message: "a maintenance window lasts at most a year.")
            }
        }
        return MaintenanceInput(title: trimmed, monitorIDs: Array(Set(ids)).sorted(), tags: tags, startsAt: starts, endsAt: ends,
                                recurrence: recurrence)
    }

    /// `recurrence`: null removes it; an object needs `cron` and
    /// `duration_minutes`, `timezone` defaults to UTC (as for heartbeats).
    static func parseRecurrence(_ b: JSONFields) throws(JSONFieldError) -> MaintenanceRecord.Recurrence? {
        guard let r = try b.nested("recurrence") else { return nil }
        let cron = try r.requiredString("cron")
        guard cron.utf8.count <= 256 else {
            throw JSONFieldError(field: "recurrence.cron", message: "recurrence.cron must be at most 256 bytes.")
        }
        do {
            _ = try CronExpression(cron)
        } catch {
            throw JSONFieldError(field: "recurrence.cron", message: "recurrence.cron: \(error.description)")
        }
        let zone = try r.string("timezone") ?? "UTC"
        do {
            _ = try TimeZoneInfo.named(zone)
        } catch {
            throw JSONFieldError(field: "recurrence.timezone",
                                 message: "recurrence.timezone must be an IANA time zone such as Europe/Berlin.")
        }
        guard let minutes = try r.int("duration_minutes", in: durationMinutes) else {
            throw JSONFieldError(field: "recurrence.duration_minutes",
                                 message: "recurrence.duration_minutes is required (1 to 10080, a week).")
        }
        return MaintenanceRecord.Recurrence(cron: cron.trimmingWhitespace(), timezone: zone, durationMinutes: minutes)
    }
}
