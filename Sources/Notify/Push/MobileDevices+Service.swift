import Core
import Store

/// A device that is not on the caller's sign-in (another sign-in's phone is
/// `404`, not `403`: its id says nothing).
public struct DeviceNotFound: Error, Equatable {
    public let id: Int64
    public var message: String { "No device with id \(id) on this sign-in." }
}

/// The phones the app enrolls (`/api/mobile/devices`, the Live Activity
/// tokens) and the lists that show them: the domain side of the mobile
/// endpoints, so the API layer reads and writes no table itself.
public struct MobileDeviceService: Sendable {
    let database: Database
    /// `[mobile] max_devices_per_user` (SPEC §10): a user's phones across
    /// all their sign-ins.
    let maxDevicesPerUser: Int

    public init(database: Database, maxDevicesPerUser: Int = 10) {
        self.database = database
        self.maxDevicesPerUser = maxDevicesPerUser
    }

    /// One sign-in is one app install, so a handful of rows at most (a new
    /// push token after a restore leaves the old row until the relay reports
    /// it invalid). The bound keeps a leaked access token from filling the
    /// table, and the relay's queue, with made-up phones; the oldest
    /// enrollment goes rather than refusing the phone that is enrolling now.
    public static let maxDevicesPerSignIn = 20

    /// New token → created; a token already enrolled (here or on an older
    /// sign-in of the same phone) is updated and moved to this sign-in.
    public func enroll(_ record: MobileDeviceRecord, now: Int64) throws -> (device: MobileDeviceRecord, created: Bool) {
        try database.write { c in
            let result = try MobileDevices.enroll(c, record, now: now)
            if result.created {
                try Self.dropOldest(c, signInID: record.signInID, keeping: result.device.id)
                try Self.dropLeastRecentlySeen(c, userID: record.userID, keeping: result.device.id, max: maxDevicesPerUser)
            }
            return result
        }
    }

    /// One more phone than the user may have: the phone seen least recently
    /// goes (it gets no more pushes: its queued ones fail), and the one
    /// enrolling now always stays. A re-enrolment of a known token is an
    /// update, not one more phone, so it never evicts.
    static func dropLeastRecentlySeen(_ c: Connection, userID: Int64, keeping id: Int64, max: Int) throws {
        let all = try MobileDevices.forUserBySeen(c, userID: userID)
        guard all.count > max else { return }
        for d in all.filter({ $0.id != id }).prefix(all.count - max) {
            try MobileDevices.delete(c, id: d.id, reason: "replaced: the user enrolled more than \(max) phones")
            Log.shared.info("phone removed: over max_devices_per_user", ["device": "\(d.id)", "user_id": "\(userID)"])
        }
    }

    static func dropOldest(_ c: Connection, signInID: Int64, keeping id: Int64) throws {
        let all = try MobileDevices.forSignIn(c, signInID: signInID)
        guard all.count > maxDevicesPerSignIn else { return }
        let stale = all.filter { $0.id != id }.sorted { ($0.updatedAt, $0.id) < ($1.updatedAt, $1.id) }
        for d in stale.prefix(all.count - maxDevicesPerSignIn) {
            try MobileDevices.delete(c, id: d.id, reason: "replaced by a newer phone of the sign-in")
        }
    }

    /// The phones of one sign-in (another sign-in of the same user is another app install).
    public func devices(signInID: Int64) throws -> [MobileDeviceRecord] {
        try database.read { c in try MobileDevices.forSignIn(c, signInID: signInID) }
    }

    /// The phones of each sign-in, from one snapshot (an indexed lookup each).
    public func devices(signInIDs: [Int64]) throws -> [[MobileDeviceRecord]] {
        try database.read { c in try signInIDs.map { try MobileDevices.forSignIn(c, signInID: $0) } }
    }

    public func delete(id: Int64, signInID: Int64) throws {
        try withOwnDevice(signInID, id) { c in _ = try MobileDevices.delete(c, id: id) }
    }

    public func setStartToken(deviceID id: Int64, signInID: Int64, token: String, now: Int64) throws {
        try withOwnDevice(signInID, id) { c in try MobileDevices.setStartToken(c, id: id, token: token, now: now) }
    }

    public func setActivity(deviceID id: Int64, signInID: Int64, activityID: String, token: String, now: Int64) throws {
        try withOwnDevice(signInID, id) { c in
            try MobileDevices.setActivity(c, id: id, activityID: activityID, token: token, now: now)
        }
    }

    /// Only the named activity is ever cleared (a report for an older one is a no-op).
    public func clearActivity(deviceID id: Int64, signInID: Int64, activityID: String, now: Int64) throws {
        try withOwnDevice(signInID, id) { c in _ = try MobileDevices.clearActivity(c, id: id, activityID: activityID, now: now) }
    }

    /// Runs `body` on the caller's device inside one write, so the ownership
    /// check and the change cannot be split by a revoke.
    private func withOwnDevice(_ signInID: Int64, _ id: Int64, _ body: (Connection) throws -> Void) throws {
        try database.write { c in
            guard let d = try MobileDevices.find(c, id: id), d.signInID == signInID else { throw DeviceNotFound(id: id) }
            try body(c)
        }
    }
}
