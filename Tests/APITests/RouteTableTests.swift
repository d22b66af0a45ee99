@testable import API
import Core
import HTTP
import Monitoring
import Notify
import Store
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A route says its access rule where it is registered (`RouteAccess`).
/// This walks the hub's real route table: every API route carries a rule,
/// the OpenAPI document states the same one, and every protected route
/// refuses a request without the right credential.
@Suite struct RouteTableTests {
    /// The route table of a hub built in process (nothing started).
    static func routes() throws -> [RouteDescription] {
        var template = Array("/tmp/pingtxt-routes-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw HarnessError("mkdtemp") }
        let dir = String(cString: made)
        defer { Sandbox.removeTree(dir) }
        let db = try Database(path: dir + "/pingtxt.db")
        defer { db.close() }
        let app = Application(database: db, settings: APISettings(), monitoring: MonitoringService(database: db, settings: MonitoringSettings()),
                              notify: NotifyService(database: db))
        return app.makeRouter().described
    }

    /// Routes outside the pages, OAuth and SSO flows: the API surface.
    static func isAPI(_ r: RouteDescription) -> Bool {
        r.path.hasPrefix("/api/") || r.path.hasPrefix("/ping/") || ["/healthz", "/metrics"].contains(r.path)
    }

    @Test func everyAPIRouteCarriesTheRuleTheOpenAPIDocumentStates() throws {
        let routes = try Self.routes().filter(Self.isAPI)
        #expect(routes.count > 60)
        let documented = Dictionary(OpenAPIDocument.operations.map { ("\($0.method.uppercased()) \($0.path)", $0.auth) },
                                    uniquingKeysWith: { a, _ in a })
        for r in routes {
            let label = try #require(r.access, "\(r.method) \(r.path) is registered without an access rule")
            #expect(documented["\(r.method) \(r.path)"] == label, "\(r.method) \(r.path): registered \(label), documented \(documented["\(r.method) \(r.path)"] ?? "nothing")")
        }
        // And nothing is documented that is not served.
        let served = Set(routes.map { "\($0.method) \($0.path)" })
        for key in documented.keys where key.contains(" /api/") || key.contains(" /ping/") {
            #expect(served.contains(key), "\(key) is documented but not served")
        }
    }

    /// A concrete target for a route pattern.
    static func target(_ path: String) -> String {
        path.replacingParameters()
    }

    @Test func everyProtectedRouteRefusesWithoutTheRightCredential() throws {
        let routes = try Self.routes().filter { Self.isAPI($0) && $0.access != "public" }
        let hub = try HubProcess()
        let oauth = OAuthEndpointTests()
        let pma = try #require(try oauth.exchange(hub, try oauth.mintCode(hub)).json()["access_token"]?.stringValue)
        let pmk = try hub.token()
        for r in routes {
            let target = Self.target(r.path)
            // No credential at all: 401 with the challenge, whatever the route.
            let bare = try hub.call(r.method, target)
            #expect(bare.status == 401, "\(r.method) \(target) without a token: \(bare.status) \(bare.text)")
            #expect(bare.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(r.method) \(target)")
            let label = r.access ?? ""
            if label.hasSuffix(" account") {
                // An OAuth access token never reaches an account endpoint.
                expectError(try hub.call(r.method, target, token: pma), 403, "account_endpoint")
            }
            if label.hasSuffix(" sign-in") {
                // Phones are bound to a sign-in: an API token is not one.
                expectError(try hub.call(r.method, target, token: pmk), 403, "sign_in_required")
            }
            if label == AgentAccess.label {
                expectError(try hub.call(r.method, target, token: pmk), 403, "agent_token_required")
            } else {
                // An agent token works only on the agent endpoints.
                expectError(try hub.call(r.method, target, token: "pmg_" + String(repeating: "A", count: 43)), 403, "agent_token")
            }
        }
    }
}

private extension String {
    /// `{id}` → 1, `{key}` → a ping key that exists nowhere, other parameters → `x`.
    func replacingParameters() -> String {
        var out = ""
        var inside = false
        var name = ""
        for ch in self {
            if ch == "{" { inside = true; name = ""; continue }
            if ch == "}" {
                inside = false
                out += name == "id" || name.hasSuffix("_id") ? "1" : "x"
                continue
            }
            if inside { name.append(ch) } else { out.append(ch) }
        }
        return out
    }
}
