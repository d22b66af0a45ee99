/// A row of `mobile_devices`: one phone enrolled on one OAuth sign-in, with
/// its Live Activity state.
public struct MobileDeviceRecord: Sendable, Equatable {
    public var id: Int64 = 0
    public var signInID: Int64
    public var userID: Int64
    /// `ios` or `android`.
    public var platform: String
    /// The platform push token (secret-ish: answers show it only to its owner).
    public var token: String
    public var name: String
    public var appVersion: String
    public var createdAt: Int64 = 0
    public var updatedAt: Int64 = 0
    /// Live Activity push-to-start token.
    public var liveActivityStartToken: String?
    /// The running activity and its update token (set by the phone).
    public var liveActivityID: String?
    public var liveActivityToken: String?
    /// A start was sent and the phone has not reported the activity yet.
    public var liveActivityStarting: Bool = false
    /// The last `aps.timestamp` sent to this phone.
    public var liveActivityTimestamp: Int64 = 0

    public init(signInID: Int64, userID: Int64, platform: String, token: String, name: String, appVersion: String) {
        self.signInID = signInID
        self.userID = userID
        self.platform = platform
        self.token = token
        self.name = name
        self.appVersion = appVersion
    }

    init(row r: Row) throws(StoreError) {
        self.init(signInID: try r.int("signin_id"), userID: try r.int("user_id"), platform: try r.text("platform"),
                  token: try r.text("token"), name: try r.text("name"), appVersion: try r.text("app_version"))
        id = try r.int("id")
        createdAt = try r.int("created_at")
        updatedAt = try r.int("updated_at")
        liveActivityStartToken = try r.optionalText("la_start_token")
        liveActivityID = try r.optionalText("la_activity_id")
        liveActivityToken = try r.optionalText("la_token")
        liveActivityStarting = try r.bool("la_starting")
        liveActivityTimestamp = try r.int("la_timestamp")
    }
}

/// Queries on `mobile_devices`. Only phones of sign-ins that are not
/// revoked are ever notified (revoking deletes them, see `OAuth.revokeSignIn`).
public enum MobileDevices {
    /// Enrolls a phone on a sign-in. The push token is unique: the same token
    /// again (on this sign-in or, after the phone signed in anew, another)
    /// updates that row and moves it here. Returns the row and whether it is new.
    public static func enroll(_ c: Connection, _ d: MobileDeviceRecord, now: Int64) throws(StoreError)
        -> (device: MobileDeviceRecord, created: Bool) {
        if let old = try c.queryOne("SELECT * FROM mobile_devices WHERE token = ?", [.text(d.token)]) {
            let id = try old.int("id")
            let moved = try old.int("signin_id") != d.signInID
            // A phone that moved to another sign-in (or user) starts its Live
            // Activity state afresh: the old one belonged to the old sign-in.
            let row = try c.queryOne("""
                UPDATE mobile_devices SET signin_id = ?1, user_id = ?2, platform = ?3, name = ?4, app_version = ?5, updated_at = ?6,
                    la_start_token = CASE WHEN ?7 = 1 THEN NULL ELSE la_start_token END,
                    la_activity_id = CASE WHEN ?7 = 1 THEN NULL ELSE la_activity_id END,
                    la_token = CASE WHEN ?7 = 1 THEN NULL ELSE la_token END,
                    la_starting = CASE WHEN ?7 = 1 THEN 0 ELSE la_starting END
                WHERE id = ?8 RETURNING *
                """, [.integer(d.signInID), .integer(d.userID), .text(d.platform), .text(d.name), .text(d.appVersion),
                      .integer(now), .integer(moved ? 1 : 0), .integer(id)])
            guard let row else { throw StoreError.misuse("device \(id) vanished during enroll") }
            return (try MobileDeviceRecord(row: row), false)
        }
        let row = try c.queryOne("""
            INSERT INTO mobile_devices (signin_id, user_id, platform, token, name, app_version, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *
            """, [.integer(d.signInID), .integer(d.userID), .text(d.platform), .text(d.token), .text(d.name),
                  .text(d.appVersion), .integer(now), .integer(now)])
        guard let row else { throw StoreError.misuse("insert into mobile_devices returned nothing") }
        return (try MobileDeviceRecord(row: row), true)
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> MobileDeviceRecord? {
        try c.queryOne("SELECT * FROM mobile_devices WHERE id = ?", [.integer(id)]).map { r throws(StoreError) in
            try MobileDeviceRecord(row: r)
        }
    }

    public static func forSignIn(_ c: Connection, signInID: Int64) throws(StoreError) -> [MobileDeviceRecord] {
        try c.query("SELECT * FROM mobile_devices WHERE signin_id = ? ORDER BY id", [.integer(signInID)])
            .map { r throws(StoreError) in try MobileDeviceRecord(row: r) }
    }

    /// A user's phones, least recently seen first. A phone is seen when it
    /// enrolls or reports a Live Activity token (`updated_at`) and whenever
    /// the app uses its sign-in's token (`last_used_at`, written at most
    /// once a minute): the later of the two. Ties go to the older row.
    public static func forUserBySeen(_ c: Connection, userID: Int64) throws(StoreError) -> [MobileDeviceRecord] {
        try c.query("""
            SELECT d.* FROM mobile_devices d JOIN oauth_signins s ON s.id = d.signin_id WHERE d.user_id = ?
            ORDER BY CASE WHEN coalesce(s.last_used_at, 0) > d.updated_at THEN s.last_used_at ELSE d.updated_at END, d.id
            """, [.integer(userID)]).map { r throws(StoreError) in try MobileDeviceRecord(row: r) }
    }

    /// Phones of live sign-ins, of `userIDs` (nil = every user).
    public static func active(_ c: Connection, userIDs: [Int64]?) throws(StoreError) -> [MobileDeviceRecord] {
        let rows = try c.query("""
            SELECT d.* FROM mobile_devices d JOIN oauth_signins s ON s.id = d.signin_id
            WHERE s.revoked_at IS NULL ORDER BY d.id
            """)
        let all = try rows.map { r throws(StoreError) in try MobileDeviceRecord(row: r) }
        guard let userIDs else { return all }
        let wanted = Set(userIDs)
        return all.filter { wanted.contains($0.userID) }
    }

    /// Removes a phone; its undelivered push rows fail with `reason`.
    @discardableResult
    public static func delete(_ c: Connection, id: Int64, reason: String = "device removed") throws(StoreError) -> Bool {
        try Outbox.failPending(c, deviceID: id, reason: reason)
        try c.execute("DELETE FROM mobile_devices WHERE id = ?", [.integer(id)])
        return c.changes > 0
    }

    /// Removes every phone of a sign-in (it was revoked).
    public static func deleteForSignIn(_ c: Connection, signInID: Int64) throws(StoreError) {
        for d in try forSignIn(c, signInID: signInID) { try delete(c, id: d.id, reason: "sign-in revoked") }
    }

    public static func setStartToken(_ c: Connection, id: Int64, token: String, now: Int64) throws(StoreError) {
        try c.execute("UPDATE mobile_devices SET la_start_token = ?, updated_at = ? WHERE id = ?",
                      [.text(token), .integer(now), .integer(id)])
    }

    /// The phone reports its running activity (after a start, or on its own).
    public static func setActivity(_ c: Connection, id: Int64, activityID: String, token: String, now: Int64) throws(StoreError) {
        try c.execute("""
            UPDATE mobile_devices SET la_activity_id = ?, la_token = ?, la_starting = 0, updated_at = ? WHERE id = ?
            """, [.text(activityID), .text(token), .integer(now), .integer(id)])
    }

    /// The activity ended on the phone. Only the named activity is cleared.
    @discardableResult
    public static func clearActivity(_ c: Connection, id: Int64, activityID: String, now: Int64) throws(StoreError) -> Bool {
        try c.execute("""
            UPDATE mobile_devices SET la_activity_id = NULL, la_token = NULL, la_starting = 0, updated_at = ?
            WHERE id = ? AND la_activity_id = ?
            """, [.integer(now), .integer(id), .text(activityID)])
        return c.changes > 0
    }

    /// Records what the hub sent: a start (awaiting the phone's token), or an
    /// end (the activity is gone), and the timestamp used.
    public static func recordLiveActivity(_ c: Connection, id: Int64, starting: Bool, ended: Bool,
                                          timestamp: Int64) throws(StoreError) {
        try c.execute("""
            UPDATE mobile_devices SET la_starting = ?1,
                la_activity_id = CASE WHEN ?2 = 1 THEN NULL ELSE la_activity_id END,
                la_token = CASE WHEN ?2 = 1 THEN NULL ELSE la_token END,
                -- max() of two values is SQLite's; CASE means the same on both engines.
                la_timestamp = CASE WHEN la_timestamp > ?3 THEN la_timestamp ELSE ?3 END
            WHERE id = ?4
            """, [.integer(starting ? 1 : 0), .integer(ended ? 1 : 0), .integer(timestamp), .integer(id)])
    }
}
