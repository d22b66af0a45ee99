import Core

/// Maintenance windows, one-off and recurring (SPEC §5, §12).
extension OpenAPIDocument {
    static let maintenanceRecurrence: JSON = [
        "type": ["object", "null"], "required": ["cron", "duration_minutes"],
        "description": .string("null = one-off. Occurrences start at the cron's fire times (the heartbeat dialect, on the zone's "
            + "wall clock) from starts_at until ends_at and last duration_minutes of real time, cut at ends_at."),
        "properties": [
            "cron": ["type": "string", "maxLength": 256, "examples": ["0 2 * * 0"]],
            "timezone": ["type": "string", "default": "UTC", "examples": ["Europe/Berlin"]],
            "duration_minutes": ["type": "integer", "minimum": 1, "maximum": 10080],
        ],
    ]

    static let maintenanceSchemas: [(String, JSON)] = [
        ("Maintenance", ["type": "object", "properties": [
            "id": ["type": "integer"], "title": ["type": "string"],
            "monitor_ids": ["type": "array", "items": ["type": "integer"]],
            "tags": tagsProperty,
            "starts_at": ["type": "string", "format": "date-time", "description": "a recurring window: the series' start"],
            "ends_at": ["type": ["string", "null"], "format": "date-time",
                        "description": "a recurring window: the series' end, null = no end"],
            "recurrence": maintenanceRecurrence,
            "created_by": ["type": ["string", "null"]],
            "active": ["type": "boolean", "description": "now inside the window or one of its occurrences"],
            "next_start": ["type": ["string", "null"], "format": "date-time",
                           "description": "start of the next occurrence that has not begun (one-off: starts_at while in the future)"],
            "created_at": ["type": "string", "format": "date-time"],
        ]]),
        ("MaintenanceInput", ["type": "object", "required": ["title", "starts_at"],
                              "description": "ends_at is required unless recurrence is given; a one-off window lasts at most a year.",
                              "properties": [
            "title": ["type": "string"], "monitor_ids": ["type": "array", "items": ["type": "integer"]],
            "tags": tagsProperty,
            "starts_at": ["type": "string", "format": "date-time"],
            "ends_at": ["type": ["string", "null"], "format": "date-time"],
            "recurrence": maintenanceRecurrence,
        ]]),
    ]
}
