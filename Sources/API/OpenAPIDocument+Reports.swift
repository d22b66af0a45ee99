import Core

/// SLA reports and the ping log (SPEC §13).
extension OpenAPIDocument {
    static let rangeQuery: [JSON] = [
        ["name": "from", "in": "query", "required": true, "schema": ["type": "string", "format": "date-time"]],
        ["name": "to", "in": "query", "required": true, "schema": ["type": "string", "format": "date-time"],
         "description": "after from, at most 400 days later"],
    ]

    static let reportOperations: [Operation] = [
        Operation(method: "get", path: "/api/monitors/{id}/sla",
                  summary: "SLA over [from, to): uptime by time (percent of the range, maintenance excluded, that the monitor was not down; "
                      + "time before the monitor existed and after now is not counted), downtime and maintenance seconds, down incidents "
                      + "overlapping the range, mean time to recovery of those closed in it, checks run.",
                  auth: "read", success: (200, ref("SLA")), query: rangeQuery),
        Operation(method: "get", path: "/api/reports/sla",
                  summary: "The SLA of every monitor (?tag= repeatable: monitors with every given tag), by id. "
                      + "With Accept: text/csv, CSV with the header monitor_id,name,uptime,downtime_seconds,maintenance_seconds,"
                      + "incidents,mttr_seconds,checks (null figures are empty fields).",
                  auth: "read",
                  success: (200, ["type": "object", "required": ["from", "to", "items"], "properties": [
                      "from": ["type": "string", "format": "date-time"], "to": ["type": "string", "format": "date-time"],
                      "items": ["type": "array", "items": ref("SLAItem")]]]),
                  query: rangeQuery + [["name": "tag", "in": "query", "schema": ["type": "string"]]]),
        Operation(method: "get", path: "/api/monitors/{id}/pings",
                  summary: "A heartbeat monitor's kept pings (retention keeps the newest 100), newest first; another type → 404.",
                  auth: "read", success: (200, list("Ping"))),
    ]

    static let slaProperties: JSON = [
        "from": ["type": "string", "format": "date-time"], "to": ["type": "string", "format": "date-time"],
        "uptime": ["type": ["number", "null"], "minimum": 0, "maximum": 100, "description": "null when nothing was measured"],
        "downtime_seconds": ["type": "integer"], "maintenance_seconds": ["type": "integer"],
        "incidents": ["type": "integer"], "mttr_seconds": ["type": ["integer", "null"]], "checks": ["type": "integer"],
    ]

    static let reportSchemas: [(String, JSON)] = [
        ("SLA", ["type": "object", "properties": slaProperties,
                 "required": ["from", "to", "uptime", "downtime_seconds", "maintenance_seconds", "incidents", "mttr_seconds", "checks"]]),
        ("SLAItem", ["allOf": [ref("SLA"), ["type": "object", "required": ["monitor_id", "name"],
                                            "properties": ["monitor_id": ["type": "integer"], "name": ["type": "string"]]]]]),
        ("Ping", ["type": "object", "required": ["id", "at", "kind", "exit_code", "duration_ms", "source_ip", "user_agent", "body"],
                  "properties": [
                      "id": ["type": "integer"], "at": ["type": "string", "format": "date-time"],
                      "kind": ["enum": ["success", "start", "fail", "exit"]],
                      "exit_code": ["type": ["integer", "null"], "description": "exit pings only (/ping/{key}/{n}, 0 included)"],
                      "duration_ms": ["type": ["integer", "null"], "description": "since the start ping just before it"],
                      "source_ip": ["type": ["string", "null"]],
                      "user_agent": ["type": ["string", "null"], "description": "first 512 bytes"],
                      "body": ["type": ["string", "null"], "description": "first 10 KiB of the request body, as UTF-8 text"],
                  ]]),
    ]
}
