import Core
import Crypto
import Store

/// The push relay settings of SPEC §6, kept in `meta` (one hub-wide value
/// each). `hubKey` is the relay's credential for this hub: never answered by
/// the API, never logged.
public struct PushSettings: Sendable, Equatable {
    public static let defaultRelayURL = "https://push.pingtxt.com"

    public var hubID: String
    public var enabled: Bool = false
    public var relayURL: String = PushSettings.defaultRelayURL
    /// Set by a successful registration with `relayURL`.
    public var hubKey: String?
    /// The relay URL `hubKey` was issued by (a changed URL needs a new key).
    public var registeredURL: String?
    public var lastError: String?
    /// Grows by one whenever the relay URL changes; phones enroll again.
    public var relayEpoch: Int64 = 1

    /// Registered with the relay that is configured now.
    public var registered: Bool { hubKey != nil && registeredURL == relayURL }

    enum Key {
        static let hubID = "hub_id"
        static let enabled = "mobile_push.enabled"
        static let relayURL = "mobile_push.relay_url"
        static let hubKey = "mobile_push.hub_key"
        static let registeredURL = "mobile_push.registered_url"
        static let lastError = "mobile_push.last_error"
        static let relayEpoch = "mobile_push.relay_epoch"
    }

    /// Reads the settings; creates the permanent `hub_id` the first time
    /// (so call it inside a write transaction at start-up).
    public static func load(_ c: Connection) throws(StoreError) -> PushSettings {
        guard let id = try Meta.get(c, Key.hubID) else {
            let id = Hex.encode(SecureRandom.bytes(16))
            try Meta.set(c, Key.hubID, id)
            return PushSettings(hubID: id)
        }
        var s = PushSettings(hubID: id)
        s.enabled = try Meta.get(c, Key.enabled) == "true"
        s.relayURL = try Meta.get(c, Key.relayURL) ?? defaultRelayURL
        s.hubKey = try Meta.get(c, Key.hubKey).flatMap { $0.isEmpty ? nil : $0 }
        s.registeredURL = try Meta.get(c, Key.registeredURL).flatMap { $0.isEmpty ? nil : $0 }
        s.lastError = try Meta.get(c, Key.lastError).flatMap { $0.isEmpty ? nil : $0 }
        s.relayEpoch = try Meta.get(c, Key.relayEpoch).flatMap { Int64($0) } ?? 1
        return s
    }

    /// Reads without creating anything (nil before the first start-up wrote `hub_id`).
    public static func read(_ c: Connection) throws(StoreError) -> PushSettings? {
        guard try Meta.get(c, Key.hubID) != nil else { return nil }
        return try load(c)
    }

    public func save(_ c: Connection) throws(StoreError) {
        try Meta.set(c, Key.hubID, hubID)
        try Meta.set(c, Key.enabled, enabled ? "true" : "false")
        try Meta.set(c, Key.relayURL, relayURL)
        try Meta.set(c, Key.hubKey, hubKey ?? "")
        try Meta.set(c, Key.registeredURL, registeredURL ?? "")
        try Meta.set(c, Key.lastError, lastError ?? "")
        try Meta.set(c, Key.relayEpoch, String(relayEpoch))
    }

    /// `{"enabled", "relay_url", "registered", "last_error"}` (the API's `mobile_push`).
    public var json: JSON {
        .object(JSONObject([("enabled", .bool(enabled)), ("relay_url", .string(relayURL)), ("registered", .bool(registered)),
                            ("last_error", lastError.map { .string($0) } ?? .null)]))
    }
}
