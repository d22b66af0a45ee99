import Core
import Store

/// Builds a validated channel row from an API body (SPEC §6); the JSON API
/// and the channel form (whose fields become the same body) both use it, so
/// they share every rule. A PATCH is merged over the stored channel: absent
/// fields keep their values, and in `config` a secret sent back as the mask
/// (or left out) keeps the stored one, as long as the type is unchanged.
/// Each error names its field.
public enum ChannelValidator {
    public static func create(_ body: JSONFields) throws(JSONFieldError) -> ChannelRecord {
        try parse(body, existing: nil)
    }

    public static func patch(_ existing: ChannelRecord, with body: JSONFields) throws(JSONFieldError) -> ChannelRecord {
        var record = try parse(body, existing: existing)
        record.id = existing.id
        return record
    }

    static func parse(_ f: JSONFields, existing: ChannelRecord?) throws(JSONFieldError) -> ChannelRecord {
        let name = try f.string("name") ?? existing?.name
        guard let name, !name.isEmpty, TextLimit.fits(name, characters: 100) else {
            throw JSONFieldError(field: "name", message: "name must be 1 to \(TextLimit.describe(characters: 100)).")
        }
        let typeText = try f.string("type") ?? existing?.type
        guard let typeText, let type = ChannelType(rawValue: typeText) else {
            throw JSONFieldError(field: "type", message: "type must be one of "
                                 + ChannelType.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        let enabled = try f.bool("enabled") ?? existing?.enabled ?? true
        var seen = Set<EventKind>()   // duplicates dropped, the first one kept
        let events = (try parseEvents(f) ?? existing?.events ?? [.monitorDown, .monitorUp]).filter { seen.insert($0).inserted }
        let monitors = try parseMonitorIDs(f) ?? existing?.monitorIDs ?? []
        let reminder = try f.int("reminder_minutes", in: 0...10_080) ?? existing?.reminderMinutes ?? 0
        let minPriority = try f.int("min_priority", in: AlertPriority.range) ?? existing?.minPriority ?? 0
        let config = try parseConfig(f, type: type, existing: existing)
        // The type's sender validates its config (events and monitors do
        // not change what it accepts).
        _ = try Channel(id: 0, name: name, type: type, enabled: enabled, events: [], monitorIDs: [], reminderMinutes: reminder,
                        config: config)
        var record = ChannelRecord(name: name, type: type.rawValue, enabled: enabled, events: events, monitorIDs: monitors,
                                   reminderMinutes: reminder, config: config)
        record.minPriority = minPriority
        return record
    }

    /// The given event kinds; nil when absent.
    static func parseEvents(_ f: JSONFields) throws(JSONFieldError) -> [EventKind]? {
        guard let given = try f.stringArray("events") else { return nil }
        var events: [EventKind] = []
        for (i, e) in given.enumerated() {
            guard let kind = EventKind(rawValue: e) else {
                throw JSONFieldError(field: "events[\(i)]", message: "events[\(i)] must be one of "
                                     + EventKind.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
            events.append(kind)
        }
        return events
    }

    /// The given monitor ids ([] = every monitor); nil when absent or null.
    static func parseMonitorIDs(_ f: JSONFields) throws(JSONFieldError) -> [Int64]? {
        switch f.object["monitor_ids"] {
        case .array(let items)?:
            var monitors: [Int64] = []
            for (i, item) in items.enumerated() {
                guard let n = item.intValue, n > 0 else {
                    throw JSONFieldError(field: "monitor_ids[\(i)]", message: "monitor_ids[\(i)] must be a monitor id.")
                }
                monitors.append(n)
            }
            return monitors
        case nil, .null?:
            return nil
        default:
            throw JSONFieldError(field: "monitor_ids", message: "monitor_ids must be an array of monitor ids.")
        }
    }

    /// The given config with stored secrets restored, or the stored config
    /// when none is given and the type is unchanged (another type needs its own).
    static func parseConfig(_ f: JSONFields, type: ChannelType, existing: ChannelRecord?) throws(JSONFieldError) -> JSONObject {
        let stored = existing?.type == type.rawValue ? existing?.config : nil
        if let given = try f.nested("config") {
            guard let stored else { return given.object }
            return Channel.restoringSecrets(given.object, stored: stored, type: type)
        }
        guard let stored else { throw JSONFieldError(field: "config", message: "config is required.") }
        return stored
    }
}
