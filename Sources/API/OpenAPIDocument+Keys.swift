import Core

/// Stable keys and configuration as code (SPEC §13; docs/config-as-code.md).
extension OpenAPIDocument {
    static let keyedKinds: [(path: String, name: String, request: String, schema: String)] = [
        ("/api/monitors", "monitor", "MonitorInput", "Monitor"),
        ("/api/channels", "channel", "ChannelInput", "Channel"),
        ("/api/maintenance", "maintenance window", "MaintenanceInput", "Maintenance"),
        ("/api/escalation-policies", "escalation policy", "EscalationPolicyInput", "EscalationPolicy"),
        ("/api/status-pages", "status page", "StatusPageInput", "StatusPage"),
    ]

    static let keyOperations: [Operation] = keyedKinds.map { kind in
        Operation(method: "put", path: kind.path + "/by-key/{key}",
                  summary: "Create (201) or replace (200) the \(kind.name) with this stable key. A replace is not a merge: fields "
                      + "left out take their create defaults, except stored secrets (channel secrets, credential headers), which "
                      + "are kept when left out or sent as the mask. A key in the body must equal the path's. The answer carries "
                      + "Pingtxt-Change: created|updated|unchanged; an unchanged object is not written. ?dry_run=true validates "
                      + "and answers 200 {key, change} without writing.",
                  auth: "write", request: ["$ref": .string("#/components/schemas/\(kind.request)")],
                  success: (200, ["$ref": .string("#/components/schemas/\(kind.schema)")]),
                  query: [["name": "dry_run", "in": "query", "schema": ["type": "boolean", "default": false]]])
    } + [
        Operation(method: "get", path: "/api/config",
                  summary: "Every monitor, channel, maintenance window, escalation policy and status page in its API representation "
                      + "(what pingtxt export writes), each with secret_fields: the paths of its secret values. Secrets are masked "
                      + "unless ?secrets=reveal, which needs an admin's write credential other than an OAuth access token.",
                  auth: "read", success: (200, ref("ConfigExport")),
                  query: [["name": "secrets", "in": "query", "schema": ["enum": ["mask", "reveal"], "default": "mask"]]]),
        Operation(method: "post", path: "/api/config/keys",
                  summary: "Give every object without a key one made from its name (lowercase, a-z0-9._ and -, unique per kind "
                      + "with -2, -3, …).",
                  auth: "write", success: (200, ref("KeysAssigned"))),
    ]

    /// `key` as the five kinds show and take it.
    static let keyProperty: JSON = [
        "type": ["string", "null"], "pattern": "^[a-z0-9._-]{1,64}$",
        "description": "stable key, unique per kind; null clears it (POST/PATCH); a key another object has → 409 key_taken",
    ]

    static let keySchemas: [(String, JSON)] = [
        ("ConfigExport", ["type": "object", "required": ["monitors", "channels", "maintenance", "escalation_policies", "status_pages"],
                          "properties": .object(JSONObject(["monitors", "channels", "maintenance", "escalation_policies", "status_pages"].map {
                              ($0, ["type": "array", "items": ["type": "object", "properties": ["key": keyProperty,
                                                                                                 "secret_fields": ["type": "array", "items": ["type": "string"]]]]])
                          }))]),
        ("KeysAssigned", ["type": "object", "required": ["assigned"], "properties": [
            "assigned": ["type": "object", "additionalProperties": ["type": "integer"],
                         "description": "objects given a key, per section (monitors, channels, …)"],
        ]]),
    ]

    /// `key` in the representation and input schemas of the five kinds
    /// (and the PATCH schemas that exist), without editing each of them.
    static func addingKeys(_ schemas: JSONObject) -> JSONObject {
        var out = schemas
        let names = keyedKinds.flatMap { [$0.request, $0.schema] } + ["EscalationPolicyPatch"]
        for name in names {
            guard case .object(var schema)? = out[name], case .object(var properties)? = schema["properties"] else { continue }
            properties["key"] = keyProperty
            schema["properties"] = .object(properties)
            out[name] = .object(schema)
        }
        return out
    }
}
