import Core

/// Hub settings (SPEC §6 push relay).
extension OpenAPIDocument {
    static let settingsOperations: [Operation] = [
        Operation(method: "get", path: "/api/settings", summary: "Hub settings: the permanent hub_id and mobile_push.",
                  auth: "read admin account", success: (200, ref("Settings"))),
        Operation(method: "patch", path: "/api/settings",
                  summary: "Change mobile_push.enabled and/or mobile_push.relay_url. Turning push on or changing the relay URL "
                      + "registers with the relay (POST {relay_url}/v1/register) before answering; a new relay URL bumps "
                      + "relay_epoch. A failed registration still answers 200, with registered false (or the old key kept) "
                      + "and last_error. relay_url must be https:// (http:// only to a loopback address).",
                  auth: "write admin account", request: ref("SettingsPatch"), success: (200, ref("Settings"))),
    ]

    static let settingsSchemas: [(String, JSON)] = [
        ("Settings", ["type": "object", "required": ["hub_id", "mobile_push"], "properties": [
            "hub_id": ["type": "string"],
            "mobile_push": ["type": "object", "required": ["enabled", "relay_url", "registered", "last_error"], "properties": [
                "enabled": ["type": "boolean"], "relay_url": ["type": "string"], "registered": ["type": "boolean"],
                "last_error": ["type": ["string", "null"]]]]]]),
        ("SettingsPatch", ["type": "object", "additionalProperties": false, "properties": [
            "mobile_push": ["type": "object", "additionalProperties": false, "properties": [
                "enabled": ["type": "boolean"], "relay_url": ["type": "string", "format": "uri"]]]]]),
    ]
}
