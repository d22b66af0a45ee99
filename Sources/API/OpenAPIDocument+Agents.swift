import Core

/// Remote agents (SPEC §8, docs/agents.md): the admin API and the protocol
/// agents speak with their `pmg_` token ("agent" auth: that token only).
extension OpenAPIDocument {
    static let agentOperations: [Operation] = [
        Operation(method: "post", path: "/api/agents",
                  summary: "Add a remote agent. The pmg_ token is in this answer only (the hub keeps its SHA-256). "
                      + "Names: 1-32 of a-z 0-9 -, starting with a letter or digit, unique, not the hub's location (409 name_taken).",
                  auth: "write admin", request: ["type": "object", "required": ["name"], "additionalProperties": false,
                                                 "properties": ["name": ["type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,31}$"]]],
                  success: (201, ref("AgentCreated"))),
        Operation(method: "get", path: "/api/agents", summary: "The agents, with status pending (never connected), online or offline.",
                  auth: "read admin", success: (200, list("Agent"))),
        Operation(method: "get", path: "/api/agents/{id}", summary: "One agent.", auth: "read admin", success: (200, ref("Agent"))),
        Operation(method: "delete", path: "/api/agents/{id}",
                  summary: "Remove an agent: its token stops working at once, its results stay, its location no longer counts.",
                  auth: "write admin", success: (204, nil)),
        Operation(method: "get", path: "/api/agent/monitors",
                  summary: "The monitors assigned to the calling agent (configuration only), with a strong ETag; "
                      + "If-None-Match with the current ETag answers 304 with no body.",
                  auth: "agent", success: (200, ref("AgentMonitors"))),
        Operation(method: "post", path: "/api/agent/results",
                  summary: "Upload at most 500 results. Results for monitors not assigned to this agent, more than 5 minutes ahead "
                      + "or more than 24 hours old, or already stored (same monitor, location and at) are ignored, not errors; "
                      + "an invalid field refuses the whole upload (400, nothing stored).",
                  auth: "agent", request: ref("AgentResults"),
                  success: (200, ["type": "object", "required": ["accepted", "ignored"],
                                  "properties": ["accepted": ["type": "integer"], "ignored": ["type": "integer"]]])),
        Operation(method: "get", path: "/api/agent/poll",
                  summary: "Long poll for check-now requests: answers as soon as there are some, or after ?wait= seconds "
                      + "(0-30, default poll_interval) with none.",
                  auth: "agent", success: (200, ref("AgentPoll"))),
    ]

    static let agentSchemas: [(String, JSON)] = [
        ("Agent", ["type": "object", "required": ["id", "name", "status", "last_seen_at", "version", "address", "poll_interval", "created_at"],
                   "properties": [
                       "id": ["type": "integer"], "name": ["type": "string"],
                       "status": ["enum": ["pending", "online", "offline"]],
                       "status_since": ["type": "string", "format": "date-time"],
                       "last_seen_at": ["type": ["string", "null"], "format": "date-time"],
                       "version": ["type": ["string", "null"]], "address": ["type": ["string", "null"]],
                       "poll_interval": ["type": "integer"], "created_at": ["type": "string", "format": "date-time"]]]),
        ("AgentCreated", ["allOf": [ref("Agent"), ["type": "object", "required": ["token"],
                                                   "properties": ["token": ["type": "string", "pattern": "^pmg_"]]]]]),
        ("AgentMonitors", ["type": "object", "required": ["agent", "poll_interval", "monitors"], "properties": [
            "agent": ["type": "object", "properties": ["id": ["type": "integer"], "name": ["type": "string"]]],
            "poll_interval": ["type": "integer"],
            "monitors": ["type": "array", "items": ["type": "object",
                                                    "description": "id and the configuration fields of a Monitor (no status or last check)."]]]]),
        ("AgentResults", ["type": "object", "required": ["results"], "properties": [
            "results": ["type": "array", "maxItems": 500, "items": ["type": "object", "required": ["monitor_id", "at", "status"],
                "properties": [
                    "monitor_id": ["type": "integer"], "at": ["type": "integer", "description": "Unix milliseconds when the check started"],
                    "status": ["enum": ["up", "down"]], "latency_ms": ["type": ["integer", "null"]],
                    "status_code": ["type": ["integer", "null"]], "error": ["type": ["string", "null"]],
                    "cert_not_after": ["type": ["integer", "null"], "description": "Unix seconds"],
                    "request_id": ["type": ["string", "null"], "description": "Answers that check-now request"]]]]]]),
        ("AgentPoll", ["type": "object", "required": ["checks", "monitors_etag"], "properties": [
            "checks": ["type": "array", "items": ["type": "object", "required": ["request_id", "monitor_id"],
                                                  "properties": ["request_id": ["type": "string"], "monitor_id": ["type": "integer"]]]],
            "monitors_etag": ["type": "string"]]]),
    ]
}
