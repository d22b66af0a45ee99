import Core
import Store

/// One user's quiet hours (SPEC §10) and the pure decision they make:
/// between `start` and `end`, local wall-clock time in `timezone`, pushes to
/// the user's phones below `minPriority` are made passive and silent (never
/// dropped). The span may cross midnight (22:00–07:00).
///
/// The clock is the wall clock of the zone, read through Core's TZif
/// reader, so a span follows daylight saving time: 22:00–07:00 in
/// Europe/Berlin is 20:00–05:00 UTC in summer and 21:00–06:00 UTC in winter,
/// and on the night of a change it is an hour shorter or longer. A time the
/// change skips (02:30 on the spring-forward night) simply never comes; a
/// time that happens twice (02:30 in autumn) is inside the span both times.
public struct QuietHours: Sendable, Equatable {
    public var enabled: Bool
    /// Minutes after local midnight, 0..<1440.
    public var start: Int
    public var end: Int
    public var timezone: String
    public var minPriority: Int

    /// What a user has before their first `PUT` (SPEC §10).
    public static let defaults = QuietHours(enabled: false, start: 22 * 60, end: 7 * 60, timezone: "UTC", minPriority: 8)

    public init(enabled: Bool, start: Int, end: Int, timezone: String, minPriority: Int) {
        self.enabled = enabled
        self.start = start
        self.end = end
        self.timezone = timezone
        self.minPriority = minPriority
    }

    /// Whether `utc` (Unix seconds) falls inside the span, whether or not
    /// the quiet hours are turned on. A zone that no longer loads (removed
    /// from the system since it was saved) reads as UTC rather than
    /// silencing nothing or everything.
    public func covers(_ utc: Int64) -> Bool {
        let zone = (try? TimeZoneInfo.named(timezone)) ?? .utc
        let local = zone.localParts(utc)
        let minute = local.hour * 60 + local.minute
        // start == end is refused when saved; were it stored, it covers nothing.
        return start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
    }

    /// Whether a push of `priority` sent at `utc` must be quieted.
    public func quiets(priority: Int, at utc: Int64) -> Bool {
        enabled && priority < minPriority && covers(utc)
    }

    // MARK: Stored form

    public init(record r: QuietHoursRecord) {
        self.init(enabled: r.enabled, start: Self.minutes(r.start) ?? Self.defaults.start,
                  end: Self.minutes(r.end) ?? Self.defaults.end, timezone: r.timezone, minPriority: Int(r.minPriority))
    }

    public func record(userID: Int64) -> QuietHoursRecord {
        QuietHoursRecord(userID: userID, enabled: enabled, start: Self.clock(start), end: Self.clock(end), timezone: timezone,
                         minPriority: Int64(minPriority))
    }

    /// The object of `/api/me/quiet-hours` and `/api/mobile/config`.
    public var json: JSON {
        .object(JSONObject([("enabled", .bool(enabled)), ("start", .string(Self.clock(start))), ("end", .string(Self.clock(end))),
                            ("timezone", .string(timezone)), ("min_priority", .int(Int64(minPriority)))]))
    }

    /// `HH:MM` → minutes after midnight; nil unless exactly two digits, a
    /// colon and two digits, 00:00 to 23:59.
    public static func minutes(_ text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count == 5, b[2] == UInt8(ascii: ":"),
              [0, 1, 3, 4].allSatisfy({ b[$0] >= UInt8(ascii: "0") && b[$0] <= UInt8(ascii: "9") }) else { return nil }
        let digit = { (i: Int) in Int(b[i] - UInt8(ascii: "0")) }
        let hour = digit(0) * 10 + digit(1), minute = digit(3) * 10 + digit(4)
        guard hour < 24, minute < 60 else { return nil }
        return hour * 60 + minute
    }

    /// Minutes after midnight → `HH:MM`.
    public static func clock(_ minutes: Int) -> String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }
}
