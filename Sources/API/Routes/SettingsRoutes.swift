import Auth
import Core
import HTTP
import Notify

/// `GET|PATCH /api/settings` (admin, account endpoints; SPEC §6). PATCH may
/// register with the push relay, a network call, so it runs on the
/// blocking pool.
struct SettingsRoutes {
    let access: Access
    let notify: NotifyService

    func register(_ r: inout RouteTable) {
        r.get("/api/settings", access.rule(.adminAccountRead, show))
        // Blocking: turning push on registers with the relay (a network round trip).
        let patch = access.rule(.adminAccountWrite, update)
        r.add("PATCH", "/api/settings", .blocking, access: patch.label, patch.handler)
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(Self.render(notify.push.settings))
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(Self.render(try Self.apply(try req.jsonFields(), push: notify.push)))
    }

    /// Validates a PATCH body and applies it (the settings page's form comes
    /// through here too, as `{"mobile_push": {...}}`).
    static func apply(_ body: JSONFields, push service: PushService) throws -> PushSettings {
        for key in body.object.keys where key != "mobile_push" {
            throw JSONFieldError(field: key, message: "\(key) is not a setting; the settings are mobile_push.enabled and mobile_push.relay_url.")
        }
        guard let push = try body.nested("mobile_push") else { return service.settings }
        for key in push.object.keys where key != "enabled" && key != "relay_url" {
            throw JSONFieldError(field: push.name(key), message: "\(push.name(key)) is not a setting (enabled, relay_url).")
        }
        let enabled = try push.bool("enabled")
        let relayURL = try push.string("relay_url")
        if let relayURL { try Self.validateRelayURL(relayURL, field: push.name("relay_url")) }
        return try service.update(enabled: enabled, relayURL: relayURL)
    }

    /// https, or http to a loopback address only (development, tests): the
    /// hub key travels in every request.
    static func validateRelayURL(_ u: String, field: String) throws(JSONFieldError) {
        let lower = u.lowercased()
        let bad: (UInt8) -> Bool = { $0 <= 0x20 || $0 == 0x7F }
        guard u.count <= 2048, !u.utf8.contains(where: bad) else {
            throw JSONFieldError(field: field, message: "\(field) must be an https:// URL.")
        }
        if lower.hasPrefix("https://"), lower.count > 8 { return }
        if lower.hasPrefix("http://") {
            let rest = lower.dropFirst(7)
            let hostPort = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let host: Substring
            if hostPort.hasPrefix("[") { host = hostPort.prefix { $0 != "]" }.dropFirst() } else { host = hostPort.prefix { $0 != ":" } }
            if LoopbackHost.contains(host) { return }
        }
        throw JSONFieldError(field: field, message: "\(field) must be an https:// URL (http:// only to a loopback address).")
    }

    static func render(_ s: PushSettings) -> JSON {
        .object(JSONObject([("hub_id", .string(s.hubID)), ("mobile_push", s.json)]))
    }
}
