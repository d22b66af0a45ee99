import Core

/// The body of `PUT /api/me/quiet-hours` (SPEC §10), validated; the
/// settings page sends its form through here too. `PUT` replaces the whole
/// object, so `enabled`, `start`, `end` and `timezone` are required (a
/// forgotten field must not quietly become a default); only `min_priority`
/// has one (8). Each error names its field.
public enum QuietHoursValidator {
    public static func parse(_ f: JSONFields) throws(JSONFieldError) -> QuietHours {
        guard let enabled = try f.bool("enabled") else {
            throw JSONFieldError(field: "enabled", message: "enabled is required (true or false).")
        }
        let start = try time(f, "start")
        let end = try time(f, "end")
        if start == end {
            throw JSONFieldError(field: "end", message: "end must differ from start (a span may cross midnight, such as 22:00 to 07:00).")
        }
        let zone = try f.requiredString("timezone")
        do {
            _ = try TimeZoneInfo.named(zone)
        } catch {
            throw JSONFieldError(field: "timezone", message: "timezone must be an IANA time zone name such as Europe/Berlin (\(error)).")
        }
        let minPriority = try f.int("min_priority", in: AlertPriority.range) ?? Int64(QuietHours.defaults.minPriority)
        return QuietHours(enabled: enabled, start: start, end: end, timezone: zone, minPriority: Int(minPriority))
    }

    static func time(_ f: JSONFields, _ key: String) throws(JSONFieldError) -> Int {
        let text = try f.requiredString(key)
        guard let minutes = QuietHours.minutes(text) else {
            throw JSONFieldError(field: key, message: "\(key) must be a time of day as HH:MM, 00:00 to 23:59.")
        }
        return minutes
    }
}
