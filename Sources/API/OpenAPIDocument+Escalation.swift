import Core

/// Escalation policies (SPEC §10).
extension OpenAPIDocument {
    static let escalationOperations: [Operation] = [
        Operation(method: "get", path: "/api/escalation-policies", summary: "Escalation policies, by id.", auth: "read",
                  success: (200, list("EscalationPolicy"))),
        Operation(method: "post", path: "/api/escalation-policies",
                  summary: "Create a policy: 1-10 steps of 1-20 existing channels, each waiting delay_minutes (1-1440) "
                      + "before the next; repeat (0-9) restarts the chain after the last step's delay.",
                  auth: "write", request: ref("EscalationPolicyInput"), success: (201, ref("EscalationPolicy"))),
        Operation(method: "get", path: "/api/escalation-policies/{id}", summary: "One policy.", auth: "read",
                  success: (200, ref("EscalationPolicy"))),
        Operation(method: "patch", path: "/api/escalation-policies/{id}",
                  summary: "Change a policy; steps, when given, replace them all. Running chains use the new steps from their next one.",
                  auth: "write", request: ref("EscalationPolicyPatch"), success: (200, ref("EscalationPolicy"))),
        Operation(method: "delete", path: "/api/escalation-policies/{id}",
                  summary: "Delete a policy; 409 policy_in_use while a monitor's escalation_policy_id names it.",
                  auth: "write", success: (204, nil)),
    ]

    static let escalationStep: JSON = [
        "type": "object", "required": ["channel_ids", "delay_minutes"], "properties": [
            "channel_ids": ["type": "array", "items": ["type": "integer"], "minItems": 1, "maxItems": 20],
            "delay_minutes": ["type": "integer", "minimum": 1, "maximum": 1440]]]

    static let escalationSchemas: [(String, JSON)] = [
        ("EscalationPolicy", ["type": "object", "required": ["id", "name", "repeat", "steps", "created_at", "updated_at"], "properties": [
            "id": ["type": "integer"], "name": ["type": "string"], "repeat": ["type": "integer"],
            "steps": ["type": "array", "items": escalationStep],
            "created_at": ["type": "string", "format": "date-time"], "updated_at": ["type": "string", "format": "date-time"]]]),
        ("EscalationPolicyInput", ["type": "object", "required": ["name", "steps"], "properties": [
            "name": ["type": "string", "minLength": 1, "maxLength": 100],
            "repeat": ["type": "integer", "minimum": 0, "maximum": 9, "default": 0],
            "steps": ["type": "array", "items": escalationStep, "minItems": 1, "maxItems": 10]]]),
        ("EscalationPolicyPatch", ["type": "object", "properties": [
            "name": ["type": "string", "minLength": 1, "maxLength": 100],
            "repeat": ["type": "integer", "minimum": 0, "maximum": 9],
            "steps": ["type": "array", "items": escalationStep, "minItems": 1, "maxItems": 10]]]),
        ("IncidentEscalation", ["type": ["object", "null"],
                                "description": "The chain while it runs; null without a policy, once it ran out, acknowledged or closed.",
                                "properties": [
                                    "policy_id": ["type": "integer"],
                                    "step": ["type": ["integer", "null"], "description": "The last step sent, from 1; null before the first."],
                                    "next_at": ["type": "string", "format": "date-time"]]]),
    ]
}
