import Core

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
    }

    static func ref(_ name: String) -> JSON { ["$ref": .string("#/components/schemas/\(name)")] }
    static func list(_ item: String) -> JSON {
        ["type": "object", "required": ["items", "next_cursor"],
         "properties": ["items": ["type": "array", "items": ref(item)],
                        "next_cursor": ["type": ["string", "null"]]]]
    }

    static let operations: [Operation] = [
        Operation(method: "get", path: "/healthz", summary: "Liveness: 200 once the database is open.", auth: "public",
                  success: (200, ["type": "object", "properties": ["status": ["const": "ok"]]])),
        Operation(method: "get", path: "/metrics", summary: "Prometheus metrics (read token, or public when metrics.public).",
                  auth: "read", success: (200, ["type": "string"])),
        Operation(method: "get", path: "/api/openapi.json", summary: "This document.", auth: "public", success: (200, ["type": "object"])),
        Operation(method: "get", path: "/api/me", summary: "The caller and its token's scope.", auth: "read", success: (200, ref("Me"))),
        Operation(method: "get", path: "/api/tokens", summary: "The caller's API tokens (secrets never shown).",
                  auth: "read account", success: (200, list("Token"))),
        Operation(method: "post", path: "/api/tokens", summary: "Create an API token; the secret is in this answer only.",
                  auth: "write account", request: ref("TokenCreate"), success: (201, ref("TokenCreated"))),
        Operation(method: "delete", path: "/api/tokens/{id}", summary: "Revoke one of the caller's tokens.",
                  auth: "write account", success: (204, nil)),
        Operation(method: "get", path: "/api/users", summary: "List users.", auth: "read admin account", success: (200, list("User"))),
        Operation(method: "post", path: "/api/users", summary: "Create a user.", auth: "write admin account",
                  request: ref("UserCreate"), success: (201, ref("User"))),
        Operation(method: "get", path: "/api/users/{id}", summary: "One user.", auth: "read admin account", success: (200, ref("User"))),
        Operation(method: "patch", path: "/api/users/{id}", summary: "Change a user's email, name, role or password.",
                  auth: "write admin account", request: ref("UserUpdate"), success: (200, ref("User"))),
        Operation(method: "delete", path: "/api/users/{id}", summary: "Delete a user and their tokens.",
                  auth: "write admin account", success: (204, nil)),
    ]

    static let schemas: JSON = [
        "Error": ["type": "object", "required": ["error"],
                  "properties": ["error": ["type": "object", "required": ["code", "message"],
                                           "properties": ["code": ["type": "string"], "message": ["type": "string"],
                                                          "field": ["type": "string"]]]]],
        "Me": ["type": "object", "properties": ["id": ["type": "integer"], "email": ["type": "string"], "name": ["type": "string"],
                                                "role": ["enum": ["admin", "readonly"]], "scope": ["enum": ["read", "write"]]]],
        "User": ["type": "object", "properties": ["id": ["type": "integer"], "email": ["type": "string"], "name": ["type": "string"],
                                                  "role": ["enum": ["admin", "readonly"]],
                                                  "created_at": ["type": "string", "format": "date-time"],
                                                  "totp_enabled": ["type": "boolean"]]],
        "UserCreate": ["type": "object", "required": ["email", "password"],
                       "properties": ["email": ["type": "string"], "name": ["type": "string"],
                                      "role": ["enum": ["admin", "readonly"], "default": "readonly"],
                                      "password": ["type": "string", "minLength": 8]]],
        "UserUpdate": ["type": "object", "properties": ["email": ["type": "string"], "name": ["type": "string"],
                                                        "role": ["enum": ["admin", "readonly"]],
                                                        "password": ["type": "string", "minLength": 8]]],
        "Token": ["type": "object", "properties": ["id": ["type": "integer"], "name": ["type": "string"],
                                                   "scope": ["enum": ["read", "write"]],
                                                   "created_at": ["type": "string", "format": "date-time"],
                                                   "expires_at": ["type": ["string", "null"], "format": "date-time"],
                                                   "last_used_at": ["type": ["string", "null"], "format": "date-time"]]],
        "TokenCreate": ["type": "object", "required": ["name"],
                        "properties": ["name": ["type": "string"], "scope": ["enum": ["read", "write"], "default": "read"],
                                       "expires_at": ["type": "string", "format": "date-time"]]],
        "TokenCreated": ["allOf": [ref("Token"), ["type": "object", "properties": ["token": ["type": "string", "pattern": "^pmk_"]]]]],
    ]

    static func build(version: String, serverURL: String) -> JSON {
        var paths = JSONObject()
        for op in operations {
            var item = paths[op.path]?.objectValue ?? JSONObject()
            var o = JSONObject([("summary", .string(op.summary)),
                                ("description", .string("Authentication: \(op.auth)."))])
            if op.auth != "public" { o["security"] = [["bearer": []]] }
            if op.path.contains("{id}") {
                o["parameters"] = [["name": "id", "in": "path", "required": true, "schema": ["type": "integer"]]]
            } else if op.method == "get" && (op.success.schema?["properties"]?["next_cursor"] != nil) {
                o["parameters"] = [["name": "limit", "in": "query", "schema": ["type": "integer", "minimum": 1, "maximum": 500, "default": 50]],
                                   ["name": "cursor", "in": "query", "schema": ["type": "string"]]]
            }
            if let req = op.request {
                o["requestBody"] = ["required": true, "content": ["application/json": ["schema": req]]]
            }
            var responses = JSONObject()
            var ok: JSONObject = JSONObject([("description", "Success")])
            if let schema = op.success.schema {
                let type = op.path == "/metrics" ? "text/plain" : "application/json"
                ok["content"] = .object(JSONObject([(type, ["schema": schema])]))
            }
            responses[String(op.success.status)] = .object(ok)
            responses["default"] = ["description": "Error", "content": ["application/json": ["schema": ref("Error")]]]
            o["responses"] = .object(responses)
            item[op.method] = .object(o)
            paths[op.path] = .object(item)
        }
        return ["openapi": "3.1.0",
                "info": ["title": "pingtxt hub API", "version": .string(version)],
                "servers": [["url": .string(serverURL)]],
                "paths": .object(paths),
                "components": ["schemas": schemas,
                               "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer"]]]]
    }
}
