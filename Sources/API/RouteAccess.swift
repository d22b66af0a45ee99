import Auth
import HTTP

/// The access rule a route is registered with (`r.get(path, access.rule(.read, handler))`):
/// the one place that says who may call it. The handler gets the checked
/// principal; the label goes into the route table (`Router.described`),
/// which the OpenAPI document's `Authentication:` lines and the route-table
/// test are compared with.
struct GuardedRoute {
    let label: String
    let handler: HTTPHandler
}

extension Access.Rule {
    /// `read`, `write`, then ` admin` and ` account` (SPEC's A and ACCT).
    var label: String {
        scope.rawValue + (admin ? " admin" : "") + (account ? " account" : "")
    }
}

extension Access {
    /// A handler behind `rule`, with the spec's JSON errors.
    func rule(_ rule: Rule, _ body: @escaping @Sendable (HTTPRequest, Principal) throws -> HTTPResponse) -> GuardedRoute {
        let access = self
        return GuardedRoute(label: rule.label, handler: guarded { req in try body(req, try access.check(req, rule)) })
    }

    /// A handler behind `rule` that also needs an OAuth sign-in (the phone's
    /// `pma_` token): API tokens and sessions get `403 sign_in_required`.
    func signIn(_ rule: Rule, _ body: @escaping @Sendable (HTTPRequest, Principal, Int64) throws -> HTTPResponse) -> GuardedRoute {
        let access = self
        return GuardedRoute(label: rule.label + " sign-in", handler: guarded { req in
            let p = try access.check(req, rule)
            guard case .oauthAccess(let signInID) = p.credential else {
                throw HTTPError(403, "sign_in_required",
                                "Phones are bound to an OAuth sign-in: call this with the app's access token (pma_), "
                                    + "not an API token or a browser session.")
            }
            return try body(req, p, signInID)
        })
    }

    /// No credential needed (PUB), with the spec's JSON errors.
    static func open(_ body: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> GuardedRoute {
        GuardedRoute(label: "public", handler: guarded(body))
    }
}

extension RouteTable {
    mutating func get(_ path: String, _ route: GuardedRoute) { add("GET", path, .pool, access: route.label, route.handler) }
    mutating func getInline(_ path: String, _ route: GuardedRoute) { add("GET", path, .inline, access: route.label, route.handler) }
    mutating func post(_ path: String, _ route: GuardedRoute) { add("POST", path, .pool, access: route.label, route.handler) }
    mutating func postBlocking(_ path: String, _ route: GuardedRoute) {
        add("POST", path, .blocking, access: route.label, route.handler)
    }
    mutating func patch(_ path: String, _ route: GuardedRoute) { add("PATCH", path, .pool, access: route.label, route.handler) }
    mutating func put(_ path: String, _ route: GuardedRoute) { add("PUT", path, .pool, access: route.label, route.handler) }
    mutating func delete(_ path: String, _ route: GuardedRoute) { add("DELETE", path, .pool, access: route.label, route.handler) }
}
