import Core

/// Messages and the app's way into the web admin (SPEC §15).
extension OpenAPIDocument {
    static let messageOperations: [Operation] = [
        Operation(method: "post", path: "/api/messages",
                  summary: "Send a message of one's own through the channels, as an alert goes (event message): priority, "
                      + "each channel's min_priority and the users' quiet hours apply; channel_ids empty = every enabled channel "
                      + "subscribed to message; a monitor_id in maintenance or muted records it silenced and sends nothing. "
                      + "No reminders, no escalation. Unknown channel or monitor: 400 with field. channel_ids in the answer are "
                      + "the channels it was queued for.",
                  auth: "write", request: ref("MessageInput"), success: (201, ref("Message"))),
        Operation(method: "post", path: "/api/mobile/web-login",
                  summary: "A one-time link (60 s) that signs the browser opening it in as the caller's user and goes on to next "
                      + "(a local path; anything else is /). The session writes only if the sign-in has write scope, and takes "
                      + "no account endpoints. A second or late use lands on the login page. Only stored hashed."
                      + signInOnly,
                  auth: "read sign-in", request: ref("WebLoginInput"), success: (200, ref("WebLogin"))),
    ]

    static let messageSchemas: [(String, JSON)] = [
        ("WebLoginInput", ["type": "object", "properties": [
            "next": ["type": "string", "default": "/", "description": "a local path such as /notify"],
        ]]),
        ("WebLogin", ["type": "object", "required": ["url", "expires_in"], "properties": [
            "url": ["type": "string", "description": "{public_url}/login/token/{one-time token}"],
            "expires_in": ["type": "integer", "const": 60],
        ]]),
        ("MessageInput", ["type": "object", "required": ["title"], "properties": [
            "title": ["type": "string", "minLength": 1, "description": "1–200 bytes of UTF-8, one line"],
            "body": ["type": "string", "default": "", "description": "at most 4000 bytes of UTF-8"],
            "priority": ["type": "integer", "minimum": 0, "maximum": 10, "default": 5],
            "channel_ids": ["type": "array", "items": ["type": "integer"], "default": .array([])],
            "url": ["type": ["string", "null"], "description": "http(s) link the notification opens; default the monitor's page"],
            "monitor_id": ["type": ["integer", "null"]],
        ]]),
        ("Message", ["type": "object", "required": ["id", "event_id", "title", "body", "priority", "channel_ids", "created_at"],
                     "properties": [
            "id": ["type": "integer"], "event_id": ["type": "integer", "description": "the event in GET /api/events"],
            "title": ["type": "string"], "body": ["type": "string"],
            "priority": ["type": "integer", "minimum": 0, "maximum": 10],
            "channel_ids": ["type": "array", "items": ["type": "integer"]],
            "url": ["type": ["string", "null"]], "monitor_id": ["type": ["integer", "null"]],
            "created_at": ["type": "string", "format": "date-time"],
        ]]),
    ]
}
