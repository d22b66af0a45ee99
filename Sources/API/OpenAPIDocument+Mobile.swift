import Core

/// The phone app's endpoints (SPEC §6 "Mobile endpoints" and "Live Activity",
/// §11 sign-in approvals).
extension OpenAPIDocument {
    static let signInOnly = " The device, Live Activity and sign-in approval endpoints need an OAuth access token (pma_): "
        + "an API token or a browser session is 403 sign_in_required."

    static let mobileOperations: [Operation] = [
        Operation(method: "get", path: "/api/mobile/config",
                  summary: "What the app needs at start: hub id and name, relay epoch (enroll again when it grows), push settings, "
                      + "the caller's scope and user, and the notification actions. Any read credential.",
                  auth: "read", success: (200, ref("MobileConfig"))),
        Operation(method: "post", path: "/api/mobile/devices",
                  summary: "Enroll this phone on the caller's sign-in: 201 with the device; the same push token again updates "
                      + "it (and moves it here from an older sign-in): 200." + signInOnly,
                  auth: "read sign-in", request: ref("MobileDeviceInput"), success: (201, ref("MobileDevice"))),
        Operation(method: "get", path: "/api/mobile/devices",
                  summary: "The phones of the caller's sign-in (push tokens are never shown)." + signInOnly,
                  auth: "read sign-in", success: (200, list("MobileDevice"))),
        Operation(method: "delete", path: "/api/mobile/devices/{id}",
                  summary: "Remove a phone of the caller's sign-in (another sign-in's is 404); its queued pushes fail."
                      + signInOnly,
                  auth: "read sign-in", success: (204, nil)),
        Operation(method: "put", path: "/api/mobile/live-activity/start-token",
                  summary: "Store the phone's Live Activity push-to-start token (404 for a device not of this sign-in)."
                      + signInOnly,
                  auth: "read sign-in", request: ref("LiveActivityStartToken"), success: (204, nil)),
        Operation(method: "put", path: "/api/mobile/live-activity/token",
                  summary: "A running activity's id and update token (404 for a device not of this sign-in)." + signInOnly,
                  auth: "read sign-in", request: ref("LiveActivityToken"), success: (204, nil)),
        Operation(method: "delete", path: "/api/mobile/live-activity/token",
                  summary: "The activity ended on the phone; only the named activity is forgotten (204 also when it was "
                      + "not the current one)." + signInOnly,
                  auth: "read sign-in", request: ref("LiveActivityEnded"), success: (204, nil)),
        Operation(method: "get", path: "/api/mobile/login-approvals",
                  summary: "Web sign-ins of the caller's user waiting for approval on the phone (the app's Confirm login "
                      + "screen, for when the push did not arrive). Never the number the browser shows." + signInOnly,
                  auth: "read sign-in", success: (200, list("LoginApproval"))),
        Operation(method: "post", path: "/api/mobile/login-approvals/{id}",
                  summary: "Answer a sign-in approval: the number the browser shows with approve true signs that browser in; "
                      + "a wrong number or approve false refuses it (and counts as a failed sign-in). An approval lives 120 s "
                      + "and is answered once: already ended is 409; another user's or an unknown id is 404." + signInOnly,
                  auth: "read sign-in", request: ref("LoginApprovalAnswer"), success: (200, ref("LoginApprovalResult")),
                  idSchema: ["type": "string", "pattern": "^[A-Za-z0-9_-]{22}$"]),
    ]

    static let printableToken: JSON = ["type": "string", "minLength": 1, "maxLength": 4096, "pattern": "^[\\x20-\\x7E]+$",
                                       "description": "printable ASCII"]
    static let activityID: JSON = ["type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[\\x20-\\x7E]+$"]

    static let mobileSchemas: [(String, JSON)] = [
        ("MobileAction", ["type": "object", "required": ["title", "method", "path", "body", "scope", "allowed"], "properties": [
            "title": ["type": "string"], "method": ["const": "POST"],
            "path": ["type": "string", "description": "{id} is the notification's monitor_id"],
            "body": ["type": ["object", "null"], "description": "JSON body to send, or null for none"],
            "scope": ["const": "write"], "allowed": ["type": "boolean", "description": "whether this token has the scope"]]]),
        ("MobileConfig", ["type": "object", "required": ["hub_id", "hub_name", "relay_epoch", "push", "scope", "user", "actions",
                                                        "quiet_hours"],
                          "properties": [
            "hub_id": ["type": "string"], "hub_name": ["type": "string"], "relay_epoch": ["type": "integer"],
            "push": ["type": "object", "properties": ["enabled": ["type": "boolean"], "relay_url": ["type": "string"]]],
            "scope": ["enum": ["read", "write"]],
            "user": ["type": "object", "properties": ["email": ["type": "string"], "role": ["enum": ["admin", "readonly"]]]],
            "actions": ["type": "object", "required": ["check_now", "mute", "pause"],
                        "properties": ["check_now": ref("MobileAction"), "mute": ref("MobileAction"),
                                       "pause": ref("MobileAction")]],
            "quiet_hours": ref("QuietHours")]]),
        ("MobileDevice", ["type": "object", "properties": [
            "id": ["type": "integer"], "platform": ["enum": ["ios", "android"]], "name": ["type": "string"],
            "app_version": ["type": "string"], "created_at": ["type": "string", "format": "date-time"],
            "updated_at": ["type": "string", "format": "date-time"],
            "live_activity": ["type": "object", "properties": [
                "start_token": ["type": "boolean", "description": "whether a push-to-start token is stored"],
                "activity_id": ["type": ["string", "null"]]]]]]),
        ("MobileDeviceInput", ["type": "object", "required": ["platform", "token"], "properties": [
            "platform": ["enum": ["ios", "android"]], "token": printableToken,
            "name": ["type": "string", "maxLength": 100], "app_version": ["type": "string", "maxLength": 50]]]),
        ("LiveActivityStartToken", ["type": "object", "required": ["device_id", "token"],
                                    "properties": ["device_id": ["type": "integer"], "token": printableToken]]),
        ("LiveActivityToken", ["type": "object", "required": ["device_id", "activity_id", "token"],
                               "properties": ["device_id": ["type": "integer"], "activity_id": activityID, "token": printableToken]]),
        ("LiveActivityEnded", ["type": "object", "required": ["device_id", "activity_id"],
                               "properties": ["device_id": ["type": "integer"], "activity_id": activityID]]),
        ("LoginApproval", ["type": "object", "required": ["id", "created_at", "expires_at", "client"], "properties": [
            "id": ["type": "string", "description": "random, base64url"],
            "created_at": ["type": "string", "format": "date-time"], "expires_at": ["type": "string", "format": "date-time"],
            "client": ["type": "string", "description": "the browser's address and name, e.g. \"203.0.113.7 · Firefox\""]]]),
        ("LoginApprovalAnswer", ["type": "object", "required": ["approve"], "properties": [
            "code": ["type": "string", "pattern": "^[0-9]{2}$",
                     "description": "the number the browser shows; required when approve is true"],
            "approve": ["type": "boolean"]]]),
        ("LoginApprovalResult", ["type": "object", "required": ["status"],
                                 "properties": ["status": ["enum": ["approved", "refused"]]]]),
    ]
}
