import Core

/// Alerts that must not be missed (SPEC §10): quiet hours and the events
/// feed. Priorities are fields of the monitor and channel schemas.
extension OpenAPIDocument {
    static let alertOperations: [Operation] = [
        Operation(method: "get", path: "/api/me/quiet-hours",
                  summary: "The caller's quiet hours; before any PUT: enabled false, 22:00 to 07:00 UTC, min_priority 8.",
                  auth: "read", success: (200, ref("QuietHours"))),
        Operation(method: "put", path: "/api/me/quiet-hours",
                  summary: "Replace the caller's quiet hours (enabled, start, end and timezone required; min_priority "
                      + "defaults to 8). During them, pushes to the caller's phones below min_priority arrive passive and "
                      + "silent, decided when each push is sent. start equal to end, a time that is not HH:MM or an unknown "
                      + "time zone is 400 with field. Any write token of the user, the app's access token included; a "
                      + "readonly user may from their own web session.",
                  auth: "write", request: ref("QuietHours"), success: (200, ref("QuietHours"))),
        Operation(method: "get", path: "/api/events",
                  summary: "Every event the hub raised, oldest first (?after=<id>: only later ones; ?limit= default 50, "
                      + "max 500); silenced: true for those maintenance kept quiet. Kept as long as raw results.",
                  auth: "read", success: (200, list("Event")),
                  query: [["name": "after", "in": "query", "schema": ["type": "integer", "minimum": 0],
                           "description": "only events with a larger id (the last one the app saw)"]]),
    ]

    static let priority: JSON = ["type": "integer", "minimum": 0, "maximum": 10]
    static let clockTime: JSON = ["type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "description": "HH:MM, local time"]

    static let alertSchemas: [(String, JSON)] = [
        ("QuietHours", ["type": "object", "required": ["enabled", "start", "end", "timezone"], "properties": [
            "enabled": ["type": "boolean"], "start": clockTime, "end": clockTime,
            "timezone": ["type": "string", "description": "IANA time zone name, e.g. Europe/Berlin"],
            "min_priority": ["type": "integer", "minimum": 0, "maximum": 10, "default": 8,
                             "description": "pushes below it are passive and silent during the span"]]]),
        ("Event", ["type": "object", "required": ["id", "event", "at", "monitor_id", "incident_id", "agent", "title", "body",
                                                  "priority", "url", "silenced"], "properties": [
            "id": ["type": "integer"],
            "event": ["enum": ["monitor_down", "monitor_up", "monitor_degraded", "expiry", "agent_offline", "agent_online",
                               "message"]],
            "at": ["type": "string", "format": "date-time"], "monitor_id": ["type": ["integer", "null"]],
            "incident_id": ["type": ["integer", "null"]], "agent": ["type": ["string", "null"]],
            "title": ["type": "string"], "body": ["type": "string"], "priority": priority,
            "url": ["type": ["string", "null"], "description": "the hub's page of the incident, monitor, or /agents"],
            "silenced": ["type": "boolean", "description": "raised during maintenance: nothing was sent"]]]),
    ]
}
