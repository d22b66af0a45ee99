import Core
import Monitoring
import Notify

/// The OpenAPI 3.1 description of every endpoint the hub serves. Built once
/// at start-up from the same table of operations the docs are written from;
/// later features add their operations here.
enum OpenAPIDocument {
    struct Operation {
        let method: String
        let path: String
        let summary: String
        /// "public", "read", "write", plus " admin" / " account" qualifiers.
        let auth: String
        var request: JSON? = nil
        var success: (status: Int, schema: JSON?)
        /// The OAuth endpoints take forms and answer HTML or OAuth's own
        /// error shape; everything else is JSON with the `/api` errors.
        var requestType = "application/json"
        var successType = "application/json"
        var errorSchema = "Error"
        /// The `{id}` path parameter's schema: ids are integers (SPEC §2),
        /// but sign-in approval ids are random strings (§11).
        var idSchema: JSON = ["type": "integer"]
        /// Query parameters beyond a list's `limit` and `cursor`.
        var query: [JSON] = []
    }

    static func ref(_ name: String) -> JSON { ["$ref": .string("#/components/schemas/\(name)")] }
    static func list(_ item: String) -> JSON {
        ["type": "object", "required": ["items", "next_cursor"],
         "properties": ["items": ["type": "array", "items": ref(item)],
                        "next_cursor": ["type": ["string", "null"]]]]
    }

    static let operations: [Operation] = [
        Operation(method: "get", path: "/healthz", summary: "Liveness: 200 once the database is open.", auth: "public",
                  success: (200, ["type": "object", "properties": ["status": ["const": "ok"],
                                                                   "database": ["enum": ["sqlite", "postgres"]],
                                                                   "node": ["type": "string"]]])),
        Operation(method: "get", path: "/metrics", summary: "Prometheus metrics (read token, or public when metrics.public).",
                  auth: "read", success: (200, ["type": "string"]),
                  query: [["name": "monitors", "in": "query", "description": "false leaves out the per-monitor families",
                           "schema": ["type": "boolean", "default": true]]]),
        Operation(method: "get", path: "/api/openapi.json", summary: "This document.", auth: "public", success: (200, ["type": "object"])),
        Operation(method: "get", path: "/api/me", summary: "The caller and its token's scope.", auth: "read", success: (200, ref("Me"))),
        Operation(method: "get", path: "/api/tokens", summary: "The caller's API tokens (secrets never shown).",
                  auth: "read account", success: (200, list("Token"))),
        Operation(method: "post", path: "/api/tokens", summary: "Create an API token; the secret is in this answer only.",
                  auth: "write account", request: ref("TokenCreate"), success: (201, ref("TokenCreated"))),
        Operation(method: "delete", path: "/api/tokens/{id}", summary: "Revoke one of the caller's tokens.",
                  auth: "write account", success: (204, nil)),
        Operation(method: "get", path: "/api/users", summary: "List users.", auth: "read admin account", success: (200, list("User"))),
        Operation(method: "post", path: "/api/users", summary: "Create a user. With invite: true and no password (needs [smtp]) "
                      + "the user gets a one-time 7-day link by mail to set the first password; invited stays true until it "
                      + "is used.", auth: "write admin account",
                  request: ref("UserCreate"), success: (201, ref("User"))),
        Operation(method: "get", path: "/api/users/{id}", summary: "One user.", auth: "read admin account", success: (200, ref("User"))),
        Operation(method: "patch", path: "/api/users/{id}", summary: "Change a user's email, name, role or password.",
                  auth: "write admin account", request: ref("UserUpdate"), success: (200, ref("User"))),
        Operation(method: "delete", path: "/api/users/{id}", summary: "Delete a user and their tokens.",
                  auth: "write admin account", success: (204, nil)),
    ] + accountOperations + monitoringOperations + oauthOperations + settingsOperations + mobileOperations + agentOperations
        + statusPageOperations + alertOperations + escalationOperations + tagOperations + keyOperations
        + reportOperations + messageOperations
    static let accountOperations: [Operation] = [
        Operation(method: "post", path: "/api/account/password",
                  summary: "Change the caller's password (the current one is required); ends the user's other web sessions.",
                  auth: "write account", request: ["type": "object", "required": ["current_password", "new_password"],
                                                   "properties": ["current_password": ["type": "string"],
                                                                  "new_password": ["type": "string", "minLength": 8]]],
                  success: (200, ["type": "object", "properties": ["status": ["const": "ok"],
                                                                   "database": ["enum": ["sqlite", "postgres"]],
                                                                   "node": ["type": "string"]]])),
        Operation(method: "post", path: "/api/account/2fa",
                  summary: "Start TOTP enrolment: a new secret and its otpauth:// URI; not active until confirmed.",
                  auth: "write account", success: (200, ["type": "object", "required": ["secret", "otpauth_uri"],
                                                         "properties": ["secret": ["type": "string", "description": "base32"],
                                                                        "otpauth_uri": ["type": "string"]]])),
        Operation(method: "post", path: "/api/account/2fa/confirm",
                  summary: "Confirm enrolment with a current code; turns 2FA on and returns 10 single-use recovery codes, shown only here.",
                  auth: "write account", request: ref("TwoFactorCode"),
                  success: (200, ["type": "object", "required": ["recovery_codes"],
                                  "properties": ["recovery_codes": ["type": "array", "items": ["type": "string"],
                                                                    "minItems": 10, "maxItems": 10]]])),
        Operation(method: "delete", path: "/api/account/2fa", summary: "Turn 2FA off; needs a current TOTP code or an unused recovery code.",
                  auth: "write account", request: ref("TwoFactorCode"), success: (204, nil)),
    ]

    static let monitoringOperations: [Operation] = [
        Operation(method: "get", path: "/api/monitors", summary: "List monitors (?status=, ?type=, ?q= on name and target, ?tag= repeatable: every given tag, any case).",
                  auth: "read", success: (200, list("Monitor"))),
        Operation(method: "post", path: "/api/monitors", summary: "Create a monitor; its first check runs at once.",
                  auth: "write", request: ref("MonitorInput"), success: (201, ref("Monitor"))),
        Operation(method: "get", path: "/api/monitors/{id}", summary: "One monitor.", auth: "read", success: (200, ref("Monitor"))),
        Operation(method: "patch", path: "/api/monitors/{id}", summary: "Partial update (nested objects merge key by key; type cannot change).",
                  auth: "write", request: ref("MonitorInput"), success: (200, ref("Monitor"))),
        Operation(method: "delete", path: "/api/monitors/{id}", summary: "Delete a monitor with its history.", auth: "write", success: (204, nil)),
        Operation(method: "post", path: "/api/monitors/{id}/check",
                  summary: "Run the check now at every online location of the monitor (the hub, and each agent through its long poll), "
                      + "record the results and return them; waits at most 15 s for the agents and names those that did not answer.",
                  auth: "write", success: (200, ["type": "object", "properties": ["monitor": ref("Monitor"),
                                                                                  "results": ["type": "array", "items": ref("FreshResult")],
                                                                                  "missing_locations": ["type": "array", "items": ["type": "string"]]]])),
        Operation(method: "post", path: "/api/monitors/{id}/pause", summary: "Stop checking; closes the open incident.",
                  auth: "write", success: (200, ref("Monitor"))),
        Operation(method: "post", path: "/api/monitors/{id}/resume", summary: "Start checking again (status pending).",
                  auth: "write", success: (200, ref("Monitor"))),
        Operation(method: "post", path: "/api/monitors/{id}/mute", summary: "A maintenance window for this monitor from now (body optional: {\"minutes\": 60}).",
                  auth: "write", request: ["type": "object", "properties": ["minutes": ["type": "integer", "minimum": 1, "default": 60]]],
                  success: (201, ref("Maintenance"))),
        Operation(method: "get", path: "/api/monitors/{id}/results", summary: "Check history, newest first (?since=, ?until=, ?location=).",
                  auth: "read", success: (200, list("CheckResult"))),
        Operation(method: "get", path: "/api/monitors/{id}/uptime", summary: "Uptime over ?period=24h|7d|30d|90d, maintenance excluded.",
                  auth: "read", success: (200, ref("Uptime"))),
        Operation(method: "get", path: "/api/incidents", summary: "Incidents, newest first (?status=open|closed, ?monitor_id=).",
                  auth: "read", success: (200, list("Incident"))),
        Operation(method: "get", path: "/api/incidents/{id}", summary: "One incident with its timeline.", auth: "read", success: (200, ref("Incident"))),
        Operation(method: "post", path: "/api/incidents/{id}/acknowledge", summary: "Record who acknowledged; stops reminders and escalation.",
                  auth: "write", success: (200, ref("Incident"))),
        Operation(method: "get", path: "/api/maintenance", summary: "Maintenance windows, newest first.", auth: "read", success: (200, list("Maintenance"))),
        Operation(method: "post", path: "/api/maintenance", summary: "Create a window (covers monitor_ids plus every monitor with any of tags; both empty = every monitor).",
                  auth: "write", request: ref("MaintenanceInput"), success: (201, ref("Maintenance"))),
        Operation(method: "get", path: "/api/maintenance/{id}", summary: "One window.", auth: "read", success: (200, ref("Maintenance"))),
        Operation(method: "patch", path: "/api/maintenance/{id}", summary: "Change a window.", auth: "write",
                  request: ref("MaintenanceInput"), success: (200, ref("Maintenance"))),
        Operation(method: "delete", path: "/api/maintenance/{id}", summary: "Delete a window.", auth: "write", success: (204, nil)),
        Operation(method: "get", path: "/api/channels", summary: "Notification channels with their delivery counts (secrets masked).",
                  auth: "read", success: (200, list("Channel"))),
        Operation(method: "post", path: "/api/channels", summary: "Create a channel (SPEC §6 types; monitor_ids [] = every monitor).",
                  auth: "write", request: ref("ChannelInput"), success: (201, ref("Channel"))),
        Operation(method: "get", path: "/api/channels/{id}", summary: "One channel.", auth: "read", success: (200, ref("Channel"))),
        Operation(method: "patch", path: "/api/channels/{id}", summary: "Change a channel; a masked or absent secret keeps its value.",
                  auth: "write", request: ref("ChannelInput"), success: (200, ref("Channel"))),
        Operation(method: "delete", path: "/api/channels/{id}", summary: "Delete a channel and its queued deliveries; 409 channel_in_use while an escalation policy names it.", auth: "write",
                  success: (204, nil)),
        Operation(method: "post", path: "/api/channels/{id}/test", summary: "Queue a test notification (no filters, no category).",
                  auth: "write", success: (200, ["type": "object", "properties": ["queued": ["type": "boolean"],
                                                                                  "outbox_id": ["type": ["integer", "null"]]]])),
    ] + pings

    /// Heartbeat pings: GET, POST and HEAD alike; `/{suffix}` is `start`,
    /// `fail` or an exit code 0–255.
    static let pings: [Operation] = ["get", "post", "head"].flatMap { method in [
        Operation(method: method, path: "/ping/{key}", summary: "Heartbeat success ping (a body up to 10 KiB is kept).",
                  auth: "public", success: (200, ["type": "string"])),
        Operation(method: method, path: "/ping/{key}/{suffix}", summary: "Heartbeat start, failure or exit-code ping.",
                  auth: "public", success: (200, ["type": "string"])),
    ] }

    /// Every channel type the hub delivers (SPEC §6), from the enum itself.
    static let channelTypes = JSON.array(ChannelType.allCases.map { .string($0.rawValue) })

    /// Ping results: the share of echo requests unanswered; null for other types.
    static let lossSchema: JSON = ["type": ["number", "null"], "minimum": 0, "maximum": 1]

    static let schemas: JSON = [
        "Error": ["type": "object", "required": ["error"],
                  "properties": ["error": ["type": "object", "required": ["code", "message"],
                                           "properties": ["code": ["type": "string"], "message": ["type": "string"],
                                                          "field": ["type": "string"]]]]],
        "TwoFactorCode": ["type": "object", "required": ["code"],
                          "properties": ["code": ["type": "string", "description": "6-digit TOTP code, or a recovery code where allowed"]]],
        "Me": ["type": "object", "properties": ["id": ["type": "integer"], "email": ["type": "string"], "name": ["type": "string"],
                                                "role": ["enum": ["admin", "readonly"]], "scope": ["enum": ["read", "write"]]]],
        "User": ["type": "object", "properties": ["id": ["type": "integer"], "email": ["type": "string"], "name": ["type": "string"],
                                                  "role": ["enum": ["admin", "readonly"]],
                                                  "created_at": ["type": "string", "format": "date-time"],
                                                  "totp_enabled": ["type": "boolean"],
                                                  "sso_provider": ["type": ["string", "null"]],
                                                  "password_login": ["type": "boolean"],
                                                  "invited": ["type": "boolean",
                                                              "description": "an invitation link not used yet (SPEC §15)"]]],
        "UserCreate": ["type": "object", "required": ["email"],
                       "properties": ["email": ["type": "string"], "name": ["type": "string"],
                                      "role": ["enum": ["admin", "readonly"], "default": "readonly"],
                                      "password": ["type": "string", "minLength": 8,
                                                   "description": "required unless invite is true; then it must be left out"],
                                      "invite": ["type": "boolean", "default": false]]],
        "UserUpdate": ["type": "object", "properties": ["email": ["type": "string"], "name": ["type": "string"],
                                                        "role": ["enum": ["admin", "readonly"]],
                                                        "password": ["type": "string", "minLength": 8],
                                                        "password_login": ["type": "boolean"]]],
        "Token": ["type": "object", "properties": ["id": ["type": "integer"], "name": ["type": "string"],
                                                   "scope": ["enum": ["read", "write"]],
                                                   "created_at": ["type": "string", "format": "date-time"],
                                                   "expires_at": ["type": ["string", "null"], "format": "date-time"],
                                                   "last_used_at": ["type": ["string", "null"], "format": "date-time"]]],
        "TokenCreate": ["type": "object", "required": ["name"],
                        "properties": ["name": ["type": "string"], "scope": ["enum": ["read", "write"], "default": "read"],
                                       "expires_at": ["type": "string", "format": "date-time"]]],
        "Monitor": ["type": "object", "description": "See SPEC §5 and §12; type-specific settings in http, dns, ping or heartbeat.",
                    "properties": ["id": ["type": "integer"], "name": ["type": "string"],
                                   "type": ["enum": ["http", "tcp", "dns", "tls", "ping", "heartbeat"]], "target": ["type": ["string", "null"]],
                                   "interval": ["type": "integer"], "timeout": ["type": "integer"], "retries": ["type": "integer"],
                                   "paused": ["type": "boolean"], "locations": ["type": "array", "items": ["type": "string"]],
                                   "tags": tagsProperty,
                                   "confirm_locations": ["type": "integer"], "degraded_after_ms": ["type": ["integer", "null"]],
                                   "cert_expiry_days": ["type": ["integer", "null"]], "escalation_policy_id": ["type": ["integer", "null"]],
                                   "depends_on": ["type": "array", "items": ["type": "integer"],
                                                  "description": "parent monitor ids (SPEC §12)"],
                                   "priority": ["type": ["integer", "null"], "minimum": 0, "maximum": 10,
                                                "description": "null = the defaults per event (SPEC §10)"],
                                   "http": ["type": "object"], "dns": ["type": "object"], "ping": ["type": "object"],
                                   "heartbeat": ["type": "object"], "ping_url": ["type": "string"],
                                   "status": ["enum": ["pending", "up", "degraded", "down", "paused"]],
                                   "status_since": ["type": "string", "format": "date-time"], "last_check": ["type": ["object", "null"]],
                                   "cert_expires_at": ["type": ["string", "null"]], "open_incident_id": ["type": ["integer", "null"]],
                                   "in_maintenance": ["type": "boolean"], "created_at": ["type": "string"], "updated_at": ["type": "string"]]],
        "MonitorInput": ["type": "object", "required": ["name", "type"],
                         "properties": ["name": ["type": "string"], "type": ["enum": ["http", "tcp", "dns", "tls", "ping", "heartbeat"]],
                                        "target": ["type": "string"], "interval": ["type": "integer", "minimum": 10, "maximum": 86400, "default": 60],
                                        "timeout": ["type": "integer", "minimum": 1, "maximum": 300, "default": 10],
                                        "retries": ["type": "integer", "minimum": 0, "maximum": 10, "default": 1],
                                        "paused": ["type": "boolean"], "locations": ["type": "array", "items": ["type": "string"]],
                                        "tags": tagsProperty,
                                        "confirm_locations": ["type": "integer", "minimum": 1], "degraded_after_ms": ["type": ["integer", "null"]],
                                        "cert_expiry_days": ["type": ["integer", "null"]],
                                        "priority": ["type": ["integer", "null"], "minimum": 0, "maximum": 10,
                                                     "description": "used for this monitor's monitor_down, monitor_degraded and expiry; monitor_up gets min(4, priority)"],
                                        "escalation_policy_id": ["type": ["integer", "null"], "default": nil],
                                        "depends_on": ["type": ["array", "null"], "items": ["type": "integer", "minimum": 1], "maxItems": 20,
                                                       "description": "existing monitors, not itself, no cycles (else 400 with field depends_on); null or absent keeps the stored list, [] clears it"],
                                        "http": ["type": "object", "properties": ["method": ["type": "string"], "headers": ["type": "object"],
                                                                                  "body": ["type": ["string", "null"]], "expected_status": ["type": "string"],
                                                                                  "keyword": ["type": ["string", "null"]], "keyword_absent": ["type": "boolean"],
                                                                                  "follow_redirects": ["type": "boolean"], "verify_tls": ["type": "boolean"],
                                                                                  "json": ["type": ["array", "null"], "maxItems": 20,
                                                                                           "items": ["$ref": "#/components/schemas/JSONAssertion"]]]],
                                        "ping": ["type": "object", "properties": ["count": ["type": "integer", "minimum": 1, "maximum": 10, "default": 3]]],
                                        "dns": ["type": "object", "properties": ["record_type": ["enum": ["A", "AAAA", "CNAME", "MX", "TXT", "NS"]],
                                                                                 "expected": ["type": ["string", "null"]], "resolver": ["type": ["string", "null"]]]],
                                        "heartbeat": ["type": "object", "properties": ["period": ["type": "integer", "minimum": 10],
                                                                                       "grace": ["type": "integer", "minimum": 10],
                                                                                       "cron": ["type": "string"], "timezone": ["type": "string"]]]]],
        "CheckResult": ["type": "object", "properties": ["id": ["type": "integer"], "at": ["type": "string"], "location": ["type": "string"],
                                                         "status": ["enum": ["up", "degraded", "down"]], "latency_ms": ["type": ["integer", "null"]],
                                                         "status_code": ["type": ["integer", "null"]], "error": ["type": ["string", "null"]],
                                                         "in_maintenance": ["type": "boolean"], "packet_loss": lossSchema]],
        "FreshResult": ["type": "object", "properties": ["location": ["type": "string"], "status": ["type": "string"],
                                                         "latency_ms": ["type": ["integer", "null"]], "status_code": ["type": ["integer", "null"]],
                                                         "error": ["type": ["string", "null"]], "at": ["type": "string"],
                                                         "packet_loss": lossSchema]],
        "JSONAssertion": ["type": "object", "required": ["path", "op"],
                          "description": "A JSON check on the body (SPEC §12, docs/monitoring.md); fails the check as down with a cause such as `$.status is \"degraded\", expected == \"ok\"`.",
                          "properties": ["path": ["type": "string", "description": "$ then .name, [\"name\"] or [index] steps"],
                                         "op": ["enum": .array(JSONAssertion.Op.allCases.map { .string($0.rawValue) })],
                                         "value": ["description": "any JSON value; absent or null for exists and not_exists"]]],
        "Uptime": ["type": "object", "properties": ["period": ["type": "string"], "uptime": ["type": ["number", "null"]],
                                                    "checks": ["type": "integer"], "avg_latency_ms": ["type": ["integer", "null"]],
                                                    "p95_latency_ms": ["type": ["integer", "null"]], "maintenance_seconds": ["type": "integer"]]],
        "Incident": ["type": "object", "properties": ["id": ["type": "integer"], "monitor_id": ["type": "integer"],
                                                      "kind": ["enum": ["down", "degraded", "expiry"]], "status": ["enum": ["open", "closed"]],
                                                      "cause": ["type": "string"], "locations": ["type": "array", "items": ["type": "string"]],
                                                      "opened_at": ["type": "string"], "closed_at": ["type": ["string", "null"]],
                                                      "acknowledged_at": ["type": ["string", "null"]], "acknowledged_by": ["type": ["string", "null"]],
                                                      "suppressed_by": ["type": ["integer", "null"],
                                                                        "description": "the parent that was down: no alert, reminder, escalation or monitor_up (SPEC §12)"],
                                                      "escalation": ref("IncidentEscalation"),
                                                      "timeline": ["type": "array", "items": ["type": "object"]]]],
        "Channel": ["type": "object", "properties": [
            "id": ["type": "integer"], "name": ["type": "string"],
            "type": ["enum": channelTypes],
            "enabled": ["type": "boolean"], "events": ["type": "array", "items": ["type": "string"]],
            "monitor_ids": ["type": "array", "items": ["type": "integer"]], "reminder_minutes": ["type": "integer"],
            "min_priority": ["type": "integer", "minimum": 0, "maximum": 10], "config": ["type": "object"],
            "delivery": ["type": "object", "properties": ["sent": ["type": "integer"], "failed": ["type": "integer"],
                                                          "pending": ["type": "integer"], "last_error": ["type": ["string", "null"]],
                                                          "last_sent_at": ["type": ["string", "null"]]]],
            "created_at": ["type": "string"], "updated_at": ["type": "string"]]],
        "ChannelInput": ["type": "object", "required": ["name", "type", "config"], "properties": [
            "name": ["type": "string"], "type": ["enum": channelTypes], "enabled": ["type": "boolean", "default": true],
            "events": ["type": "array", "items": ["enum": ["monitor_down", "monitor_up", "monitor_degraded", "expiry",
                                                            "agent_offline", "agent_online", "message"]]],
            "monitor_ids": ["type": "array", "items": ["type": "integer"]],
            "reminder_minutes": ["type": "integer", "minimum": 0, "maximum": 10080],
            "min_priority": ["type": "integer", "minimum": 0, "maximum": 10, "default": 0,
                             "description": "notifications below it are not sent here (reminders included; Test ignores it)"],
            "config": ["type": "object"]]],
        "TokenCreated": ["allOf": [ref("Token"), ["type": "object", "properties": ["token": ["type": "string", "pattern": "^pmk_"]]]]],
    ]

    static func build(version: String, serverURL: String) -> JSON {
        var paths = JSONObject()
        for op in operations {
            var item = paths[op.path]?.objectValue ?? JSONObject()
            var o = JSONObject([("summary", .string(op.summary)),
                                ("description", .string("Authentication: \(op.auth)."))])
            // A web session cookie works too; unsafe methods then also need X-CSRF-Token.
            // The label is the one the route is registered with (RouteAccess):
            // scope, then `admin` (A) and `account` (ACCT); `sign-in` = only
            // the app's OAuth access token; `agent` = only a pmg_ token.
            if op.auth == "agent" || op.auth.hasSuffix(" sign-in") {
                o["security"] = [["bearer": []]]  // a pmg_ or pma_ token only
            } else if op.auth != "public" {
                o["security"] = [["bearer": []], ["session": []]]
            }
            var parameters: [JSON] = []
            if op.path.contains("{id}") {
                parameters.append(["name": "id", "in": "path", "required": true, "schema": op.idSchema])
            }
            if op.path.contains("{slug}") {
                parameters.append(["name": "slug", "in": "path", "required": true, "schema": ["type": "string"]])
            }
            if op.path.contains("{monitor_id}") {
                parameters.append(["name": "monitor_id", "in": "path", "required": true, "schema": ["type": "integer"]])
            }
            if op.path.contains("{key}") {
                parameters.append(["name": "key", "in": "path", "required": true, "schema": ["type": "string"]])
            }
            if op.path.contains("{suffix}") {
                parameters.append(["name": "suffix", "in": "path", "required": true,
                                   "schema": ["type": "string", "pattern": "^(start|fail|[0-9]{1,3})$"]])
            }
            if op.method == "get" && op.success.schema?["properties"]?["next_cursor"] != nil {
                parameters.append(["name": "limit", "in": "query", "schema": ["type": "integer", "minimum": 1, "maximum": 500, "default": 50]])
                parameters.append(["name": "cursor", "in": "query", "schema": ["type": "string"]])
            }
            parameters += op.query
            if !parameters.isEmpty { o["parameters"] = .array(parameters) }
            if let req = op.request {
                o["requestBody"] = ["required": true, "content": .object(JSONObject([(op.requestType, ["schema": req])]))]
            }
            var responses = JSONObject()
            var ok: JSONObject = JSONObject([("description", "Success")])
            if let schema = op.success.schema {
                let type = op.path == "/metrics" ? "text/plain" : op.successType
                ok["content"] = .object(JSONObject([(type, ["schema": schema])]))
            }
            responses[String(op.success.status)] = .object(ok)
            responses["default"] = ["description": "Error", "content": ["application/json": ["schema": ref(op.errorSchema)]]]
            o["responses"] = .object(responses)
            item[op.method] = .object(o)
            paths[op.path] = .object(item)
        }
        return ["openapi": "3.1.0",
                "info": ["title": "pingtxt hub API", "version": .string(version)],
                "servers": [["url": .string(serverURL)]],
                "paths": .object(paths),
                "components": ["schemas": .object(addingKeys(JSONObject((schemas.objectValue?.entries.map { ($0.key, $0.value) } ?? []) + oauthSchemas + settingsSchemas + mobileSchemas + agentSchemas
                                                                     + statusPageSchemas + alertSchemas + escalationSchemas + tagSchemas + keySchemas
                                                                     + maintenanceSchemas + reportSchemas + messageSchemas))),
                               "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer"],
                                                   "session": ["type": "apiKey", "in": "cookie", "name": "pingtxt_session",
                                                               "description": "Web session of the login page; POST, PATCH, PUT and DELETE also need the header X-CSRF-Token."]]]]
    }
}
