import Core
import Store

/// Users' quiet hours as the API and the settings page read and write them,
/// and what the push sender asks at send time (SPEC §10).
public struct QuietHoursService: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// The user's quiet hours, or the defaults before their first save.
    public func get(userID: Int64) throws -> QuietHours {
        try database.read { c in try UserQuietHours.find(c, userID: userID).map(QuietHours.init(record:)) } ?? .defaults
    }

    /// Replaces the user's quiet hours; returns them as stored.
    public func set(userID: Int64, _ q: QuietHours, now: Int64 = Time.now()) throws -> QuietHours {
        try database.write { c in QuietHours(record: try UserQuietHours.save(c, q.record(userID: userID), now: now)) }
    }

    /// The quiet hours that are turned on, per phone: one read per batch
    /// of pushes, so the decision uses what the user set at that moment.
    func enabledByDevice() throws -> [Int64: QuietHours] {
        try database.read { c in try UserQuietHours.enabledByDevice(c) }.mapValues(QuietHours.init(record:))
    }
}
