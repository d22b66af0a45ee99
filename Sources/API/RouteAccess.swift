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
    /// Answers on the event loop when it can (`RouteHandler.fast`).
    var fast: HTTPFastHandler? = nil
}

/// An answer kept with a `KeptCaller` (which keeps objects).
final class KeptAnswer: Sendable {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
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

    /// `rule` for an answer made from the caller alone, never blocking: a
    /// bearer token this hub checked this second answers on the event loop
    /// (`Access.cachedPrincipal`), with the answer made once per token and
    /// second and kept under `memo` beside the principal (`KeptCaller`);
    /// anything else — a session cookie, a token not checked yet, a
    /// refusal — goes through `rule`'s full check on the pool, which gives
    /// every error its usual answer.
    func cached(_ rule: Rule, memo key: String, _ body: @escaping @Sendable (Principal) -> HTTPResponse) -> GuardedRoute {
        let access = self
        var route = self.rule(rule) { _, p in body(p) }
        route.fast = { req in
            guard let kept = access.cachedPrincipal(req, rule) else { return nil }
            // Each key is this route's own, so what is kept under it is a KeptAnswer.
            return (kept.answer(key) { KeptAnswer(body(kept.principal)) } as? KeptAnswer)?.response ?? body(kept.principal)
        }
        return route
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
    mutating func get(_ path: String, _ route: GuardedRoute) {
        if let fast = route.fast {
            get(path, access: route.label, fast: fast, route.handler)
        } else {
            add("GET", path, .pool, access: route.label, route.handler)
        }
    }
    mutating func getInline(_ path: String, _ route: GuardedRoute) { add("GET", path, .inline, access: route.label, route.handler) }
    mutating func post(_ path: String, _ route: GuardedRoute) { add("POST", path, .pool, access: route.label, route.handler) }
    mutating func postBlocking(_ path: String, _ route: GuardedRoute) {
        add("POST", path, .blocking, access: route.label, route.handler)
    }
    mutating func patch(_ path: String, _ route: GuardedRoute) { add("PATCH", path, .pool, access: route.label, route.handler) }
    mutating func put(_ path: String, _ route: GuardedRoute) { add("PUT", path, .pool, access: route.label, route.handler) }
    mutating func delete(_ path: String, _ route: GuardedRoute) { add("DELETE", path, .pool, access: route.label, route.handler) }
}
