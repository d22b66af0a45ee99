import Core
import Testing
import TestSupport

/// `/healthz`, `/api/openapi.json` and `/metrics`.
@Suite struct SystemEndpointTests {
    /// SPEC §14: `/healthz` says the engine the hub runs on.
    @Test(arguments: TestEngine.all) func healthz(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let r = try hub.call("GET", "/healthz")
        let body = try expectJSON(r)
        #expect(body["status"] == "ok" && body["database"] == .string(engine.rawValue))
        // Several hubs may share a PostgreSQL database: the hub names itself there.
        if engine == .postgres {
            #expect(body["node"]?.stringValue?.hasSuffix(":\(hub.port)") == true, "\(body)")
        } else {
            #expect(body["node"] == nil)
        }
        #expect(r.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(r.header("Date")?.hasSuffix(" GMT") == true)
    }

    @Test func openAPIDocumentListsEveryRoute() throws {
        let hub = try HubProcess()
        let r = try hub.call("GET", "/api/openapi.json")
        let doc = try expectJSON(r)
        #expect(doc["openapi"]?.stringValue == "3.1.0")
        #expect(doc["info"]?["version"]?.stringValue == "0.1.0")
        let paths = try #require(doc["paths"])
        let expected: [(String, [String])] = [
            ("/healthz", ["get"]), ("/metrics", ["get"]), ("/api/openapi.json", ["get"]), ("/api/me", ["get"]),
            ("/api/tokens", ["get", "post"]), ("/api/tokens/{id}", ["delete"]),
            ("/api/users", ["get", "post"]), ("/api/users/{id}", ["get", "patch", "delete"]),
            ("/.well-known/oauth-authorization-server", ["get"]), ("/oauth/authorize", ["get", "post"]),
            ("/oauth/token", ["post"]), ("/oauth/revoke", ["post"]),
            ("/api/connected-apps", ["get"]), ("/api/connected-apps/{id}", ["delete"]),
            ("/api/account/password", ["post"]), ("/api/account/2fa", ["post", "delete"]), ("/api/account/2fa/confirm", ["post"]),
            ("/api/mobile/config", ["get"]), ("/api/mobile/devices", ["get", "post"]), ("/api/mobile/devices/{id}", ["delete"]),
            ("/api/mobile/live-activity/start-token", ["put"]), ("/api/mobile/live-activity/token", ["put", "delete"]),
            ("/api/mobile/login-approvals", ["get"]), ("/api/mobile/login-approvals/{id}", ["post"]),
            ("/api/settings", ["get", "patch"]),
        ]
        for (path, methods) in expected {
            for method in methods {
                #expect(paths[path]?[method]?["responses"] != nil, "\(method) \(path) missing")
            }
        }
        // Sign-in approval ids are strings (SPEC §11), other ids integers.
        let approvalID = paths["/api/mobile/login-approvals/{id}"]?["post"]?["parameters"]?.arrayValue?.first
        #expect(approvalID?["schema"]?["type"]?.stringValue == "string")
        #expect(paths["/api/users/{id}"]?["get"]?["parameters"]?.arrayValue?.first?["schema"]?["type"]?.stringValue == "integer")
        // Every $ref points at a schema the document defines.
        let schemas = doc["components"]?["schemas"]?.objectValue?.keys ?? []
        for ref in refs(in: doc) {
            #expect(schemas.contains(String(ref.dropFirst("#/components/schemas/".count))), "dangling \(ref)")
        }
    }

    func refs(in json: JSON) -> [String] {
        switch json {
        case .object(let o):
            return o.entries.flatMap { $0.key == "$ref" ? [$0.value.stringValue ?? ""] : refs(in: $0.value) }
        case .array(let a):
            return a.flatMap(refs(in:))
        default:
            return []
        }
    }

    @Test func metricsNeedAReadToken() throws {
        let hub = try HubProcess()
        let missing = try hub.call("GET", "/metrics")
        expectError(missing, 401, "unauthorized")
        #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)

        _ = try hub.call("GET", "/api/nope")   // a 404 to count
        let read = try hub.token(scope: "read")
        let r = try hub.call("GET", "/metrics", token: read)
        #expect(r.status == 200)
        #expect(r.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(r.text.contains("pingtxt_http_requests_total{"))
        #expect(r.text.contains("status=\"401\""))
        #expect(r.text.contains("status=\"404\""))
        #expect(r.text.contains("pingtxt_build_info{version=\"0.1.0\"} 1"))
        #expect(r.text.contains("# TYPE pingtxt_http_requests_total counter"))
    }

    @Test func metricsArePublicWhenConfigured() throws {
        let hub = try HubProcess(environment: ["PINGTXT_METRICS_PUBLIC": "true"])
        let r = try hub.call("GET", "/metrics")
        #expect(r.status == 200, "\(r.text)")
        #expect(r.text.contains("pingtxt_http_requests_total"))
        #expect(r.text.contains("pingtxt_build_info"))
    }
}
