import Core
import Monitoring

/// Status pages (SPEC §7): the configuration API and the public pages.
extension OpenAPIDocument {
    static let statusPageOperations: [Operation] = [
        Operation(method: "get", path: "/api/status-pages", summary: "Status pages, in id order.", auth: "read",
                  success: (200, list("StatusPage"))),
        Operation(method: "post", path: "/api/status-pages",
                  summary: "Create a status page. slug: 1–64 of a-z, 0-9 and -, not starting with - (taken → 409 slug_taken); "
                      + "monitor_ids in display order, each an existing monitor (else 400 naming monitor_ids[i]).",
                  auth: "write", request: ref("StatusPageInput"), success: (201, ref("StatusPage"))),
        Operation(method: "get", path: "/api/status-pages/{id}", summary: "One status page.", auth: "read",
                  success: (200, ref("StatusPage"))),
        Operation(method: "patch", path: "/api/status-pages/{id}", summary: "Change a status page (fields given replace the stored ones).",
                  auth: "write", request: ref("StatusPagePatch"), success: (200, ref("StatusPage"))),
        Operation(method: "delete", path: "/api/status-pages/{id}", summary: "Delete a status page.", auth: "write",
                  success: (204, nil)),
        Operation(method: "get", path: "/status/{slug}",
                  summary: "The public status page (HTML; no authentication; Cache-Control: public, max-age=30; a copy the hub kept "
                      + "([status_pages] cache_seconds) carries Age). Unknown slug → 404 page.",
                  auth: "public", success: (200, ["type": "string"]), successType: "text/html"),
        Operation(method: "get", path: "/status/{slug}.json",
                  summary: "The public status page as JSON: overall status, listed monitors with 90 days of daily uptime, open incidents, upcoming maintenance.",
                  auth: "public", success: (200, ref("PublicStatusPage"))),
        Operation(method: "get", path: "/status/{slug}/badge/{monitor_id}.svg",
                  summary: "An SVG status badge of a monitor listed on that page (else 404); Cache-Control: public, max-age=60.",
                  auth: "public", success: (200, ["type": "string"]), successType: "image/svg+xml"),
    ]

    static let statusPageSchemas: [(String, JSON)] = [
        ("StatusPage", ["type": "object", "required": ["id", "slug", "title", "description", "monitor_ids", "created_at", "updated_at"],
                        "properties": [
                            "id": ["type": "integer"], "slug": ["type": "string"], "title": ["type": "string"],
                            "description": ["type": "string"], "monitor_ids": ["type": "array", "items": ["type": "integer"]],
                            "tags": tagsProperty,
                            "created_at": ["type": "string", "format": "date-time"],
                            "updated_at": ["type": "string", "format": "date-time"]]]),
        ("StatusPageInput", ["type": "object", "required": ["slug", "title"], "properties": statusPageInputProperties]),
        ("StatusPagePatch", ["type": "object", "properties": statusPageInputProperties]),
        ("PublicStatusPage", ["type": "object", "properties": [
            "slug": ["type": "string"], "title": ["type": "string"], "description": ["type": "string"],
            "status": ["enum": ["operational", "partial_outage", "major_outage", "maintenance"]],
            "status_text": ["enum": ["All systems operational", "Partial outage", "Major outage", "Maintenance"]],
            "monitors": ["type": "array", "items": ["type": "object", "properties": [
                "id": ["type": "integer"], "name": ["type": "string"],
                "status": ["enum": ["pending", "up", "degraded", "down", "paused", "maintenance"]],
                "status_since": ["type": "string", "format": "date-time"],
                "uptime_90d": ["type": ["number", "null"]],
                "days": ["type": "array", "items": ["type": "object", "properties": [
                    "date": ["type": "string", "format": "date"],
                    "status": ["enum": ["operational", "partial", "major", "maintenance", "no_data"]],
                    "uptime": ["type": ["number", "null"]]]]]]]],
            "incidents": ["type": "array", "items": ["type": "object", "properties": [
                "monitor_id": ["type": "integer"], "monitor_name": ["type": "string"],
                "kind": ["enum": ["down", "degraded", "expiry"]], "since": ["type": "string", "format": "date-time"],
                "cause": ["type": "string"]]]],
            "maintenance": ["type": "array", "description": .string("per window covering a listed monitor: its occurrence in progress, "
                                + "else its next one if it starts within 7 days; soonest first, at most 20"),
                            "items": ["type": "object", "properties": [
                "title": ["type": "string"], "starts_at": ["type": "string", "format": "date-time"],
                "ends_at": ["type": "string", "format": "date-time"], "active": ["type": "boolean"],
                "recurring": ["type": "boolean"],
                "monitors": ["type": "array", "items": ["type": "string"], "description": "names of this page's monitors it covers"]]]],
            "generated_at": ["type": "string", "format": "date-time"]]]),
    ]

    static let statusPageInputProperties: JSON = [
        "slug": ["type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,63}$"],
        "title": ["type": "string", "minLength": 1, "maxLength": 200],
        "description": ["type": "string", "maxLength": 2000],
        "monitor_ids": ["type": "array", "items": ["type": "integer"], "maxItems": .int(Int64(StatusPageInput.maxMonitors))],
        "tags": tagsProperty,
    ]
}
