import Core

/// Tags and bulk actions (SPEC §12).
extension OpenAPIDocument {
    static let tagOperations: [Operation] = [
        Operation(method: "post", path: "/api/monitors/bulk",
                  summary: "One action on many monitors: exactly one of ids (1–1000, all must exist, else 400 naming them) "
                      + "and tag; answers every matched monitor's id. A mute is one maintenance window naming them all. "
                      + "action create takes monitors (1–1000 bodies of POST /api/monitors) instead, creates all or none "
                      + "(an invalid one is 400 naming monitors[i]) and answers the new ids in order; each is checked first "
                      + "at its slot within one interval.",
                  auth: "write", request: ref("BulkAction"),
                  success: (200, ["type": "object", "required": ["affected"],
                                  "properties": ["affected": ["type": "array", "items": ["type": "integer"]]]])),
    ]

    /// `tags` as monitors, maintenance windows and status pages take it.
    static let tagsProperty: JSON = [
        "type": "array", "maxItems": 20,
        "items": ["type": "string", "pattern": "^[A-Za-z0-9._:-]{1,40}$"],
        "description": "stored lowercase, sorted, each once",
    ]

    static let tagSchemas: [(String, JSON)] = [
        ("BulkAction", ["type": "object", "required": ["action"], "properties": [
            "action": ["enum": ["pause", "resume", "mute", "delete", "create"]],
            "monitors": ["type": "array", "items": ref("MonitorInput"), "minItems": 1, "maxItems": 1000, "description": "create only"],
            "ids": ["type": "array", "items": ["type": "integer"], "minItems": 1, "maxItems": 1000],
            "tag": ["type": "string", "pattern": "^[A-Za-z0-9._:-]{1,40}$"],
            "minutes": ["type": "integer", "minimum": 1, "maximum": 43200, "default": 60, "description": "mute only"],
        ]]),
    ]
}
