import Core
import Store

/// Validation of the `/api/mobile` request bodies and the device's JSON
/// shape (shared with `/api/connected-apps`). Every failure is a
/// `JSONFieldError`, so the answer is `400 validation_failed` with `field`.
enum MobileInput {
    static let platforms = ["ios", "android"]
    static let tokenMaxLength = 4096
    static let activityIDMaxLength = 200
    static let nameMaxLength = 100
    static let appVersionMaxLength = 50

    /// `POST /api/mobile/devices`: platform and token required, name and
    /// app_version optional (empty when left out).
    struct Enrollment {
        var platform: String
        var token: String
        var name: String
        var appVersion: String
    }

    static func enrollment(_ f: JSONFields) throws(JSONFieldError) -> Enrollment {
        guard let platform = try f.oneOf("platform", platforms) else {
            throw JSONFieldError(field: "platform", message: "platform is required: ios or android.")
        }
        let token = try pushToken(f, "token")
        let name = try f.string("name") ?? ""
        guard TextLimit.fits(name, characters: nameMaxLength) else {
            throw JSONFieldError(field: "name", message: "name must be at most \(TextLimit.describe(characters: nameMaxLength)).")
        }
        let version = try f.string("app_version") ?? ""
        guard TextLimit.fits(version, characters: appVersionMaxLength) else {
            throw JSONFieldError(field: "app_version", message: "app_version must be at most \(TextLimit.describe(characters: appVersionMaxLength)).")
        }
        // Control characters would end up in the admin UI and in logs.
        for (key, value) in [("name", name), ("app_version", version)] where value.unicodeScalars.contains(where: isControl) {
            throw JSONFieldError(field: key, message: "\(key) must not contain control characters.")
        }
        return Enrollment(platform: platform, token: token, name: name, appVersion: version)
    }

    /// A required, positive integer id (`device_id`): a string "5" is refused,
    /// ids are integers (SPEC §2).
    static func deviceID(_ f: JSONFields) throws(JSONFieldError) -> Int64 {
        guard let id = try f.int("device_id") else {
            throw JSONFieldError(field: "device_id", message: "device_id is required.")
        }
        guard id > 0 else { throw JSONFieldError(field: "device_id", message: "device_id must be a device id.") }
        return id
    }

    /// `activity_id`: 1–200 printable ASCII characters (ActivityKit's ids are UUIDs).
    static func activityID(_ f: JSONFields) throws(JSONFieldError) -> String {
        try printable(f, "activity_id", max: activityIDMaxLength)
    }

    /// A push token (device, push-to-start or activity update): 1–4096
    /// printable ASCII characters. APNs tokens are hex and FCM tokens are
    /// URL-safe text, so anything else is a client bug, not a token; it is
    /// also what ends up in the relay's JSON.
    static func pushToken(_ f: JSONFields, _ key: String) throws(JSONFieldError) -> String {
        try printable(f, key, max: tokenMaxLength)
    }

    private static func printable(_ f: JSONFields, _ key: String, max: Int) throws(JSONFieldError) -> String {
        let value = try f.requiredString(key)
        guard !value.isEmpty, value.utf8.count <= max, value.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else {
            throw JSONFieldError(field: f.name(key), message: "\(f.name(key)) must be 1 to \(max) printable ASCII characters.")
        }
        return value
    }

    private static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value)
    }

    /// A phone as answers show it. Push tokens are never echoed back: a
    /// token lets whoever holds it (with the relay's key) notify that phone,
    /// and the app already knows its own; `live_activity.start_token` only
    /// says whether one is stored.
    static func device(_ d: MobileDeviceRecord) -> JSON {
        .object(JSONObject([
            ("id", .int(d.id)), ("platform", .string(d.platform)), ("name", .string(d.name)),
            ("app_version", .string(d.appVersion)), ("created_at", .time(d.createdAt)), ("updated_at", .time(d.updatedAt)),
            ("live_activity", .object(JSONObject([("start_token", .bool(d.liveActivityStartToken != nil)),
                                                  ("activity_id", .from(d.liveActivityID))]))),
        ]))
    }
}
