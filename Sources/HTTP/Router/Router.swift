/// Where a handler runs. `inline` handlers run on the event loop and must
/// never block (no database, no network): only constant answers such as
/// `/healthz`. `pool` handlers (most of the API) run on the worker pool,
/// sized to the cores. `blocking` handlers mostly wait — for a check up to
/// its timeout (check now), or for a group commit (heartbeat pings) — and
/// get a larger pool of their own, so they cannot starve the quick ones.
public enum RouteExecution: Sendable {
    case inline
    case pool
    case blocking
}

public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// Delivers a deferred handler's answer; callable from any thread, once.
public typealias HTTPRespond = @Sendable (HTTPResponse) -> Void

/// A handler that answers later without holding a thread: it is called on
/// the event loop, must return at once (no blocking), and calls `respond`
/// when its work is done elsewhere (e.g. after a group commit).
public typealias HTTPDeferredHandler = @Sendable (HTTPRequest, @escaping HTTPRespond) -> Void

/// Answers on the event loop when it can without blocking (from memory),
/// or returns nil to send the request to the route's pool handler.
public typealias HTTPFastHandler = @Sendable (HTTPRequest) -> HTTPResponse?

/// What a route runs.
public enum RouteHandler: Sendable {
    case direct(HTTPHandler)
    case deferred(HTTPDeferredHandler)
    /// `fast` first, on the event loop; when it returns nil, `slow` on the
    /// pool. A pool round trip (two thread wake-ups and a hand-back through
    /// the mailbox) costs more than a cheap answer itself: on `/api/me`,
    /// which a cached credential answers, it was half the request's CPU.
    case fast(HTTPFastHandler, slow: HTTPHandler)
}

/// A matched route: the handler to call, with the path parameters filled in.
public struct RouteMatch: Sendable {
    public let pattern: String
    public let execution: RouteExecution
    public let parameters: PathParameters
    public let handler: RouteHandler
}

/// Method + path-pattern routing. Patterns are literal segments and `{name}`
/// parameters (`/api/users/{id}`); a literal segment wins over a parameter.
/// `HEAD` is served by the `GET` route. A path that matches with another
/// method gives `405` with `Allow`; no match gives `404`.
public final class Router: Sendable {
    private struct Route: Sendable {
        let method: String
        let pattern: RoutePattern
        let execution: RouteExecution
        let handler: RouteHandler
    }

    private let routes: [Route]
    /// Every route as registered, with the access rule it was registered
    /// under (nil: the route does its own checking, e.g. the web pages).
    /// The API's route-table test walks this.
    public let described: [RouteDescription]
    /// Routes without parameters by path, then method: the common hit
    /// (`/healthz`, `/api/me`) is one hash lookup and no allocation. A
    /// path's methods are kept in registration order and compared one by
    /// one: a path has one to four, and a second hashed lookup cost more.
    private let exact: [String: [(method: String, match: RouteMatch)]]
    /// Every route, walked by segment (see `RouteTrie`).
    private let trie: RouteTrie

    /// Builds a router from a configuration closure; routes are fixed after.
    public init(_ build: (inout RouteTable) -> Void) {
        var table = RouteTable()
        build(&table)
        routes = table.entries.map { Route(method: $0.method, pattern: RoutePattern($0.path),
                                           execution: $0.execution, handler: $0.handler) }
        described = table.entries.map { RouteDescription(method: $0.method, path: $0.path, access: $0.access) }
        var exact: [String: [(method: String, match: RouteMatch)]] = [:]
        var trie = RouteTrie()
        for (i, route) in routes.enumerated() {
            trie.insert(route.pattern, index: i)
            guard !route.pattern.hasParameters,
                  exact[route.pattern.text]?.contains(where: { $0.method == route.method }) != true else { continue }
            exact[route.pattern.text, default: []].append((route.method, RouteMatch(
                pattern: route.pattern.text, execution: route.execution, parameters: [:], handler: route.handler)))
        }
        self.exact = exact
        self.trie = trie
    }

    /// Finds the handler for a method and raw path, or throws `404`/`405`.
    public func match(method: String, path: String) throws(HTTPError) -> RouteMatch {
        if let byMethod = exact[path] {
            if let hit = byMethod.first(where: { $0.method == method }) { return hit.match }
            if method == "HEAD", let hit = byMethod.first(where: { $0.method == "GET" }) { return hit.match }
        }
        let segments = RoutePattern.split(path)
        let best = trie.best(segments) { i in
            let m = routes[i].method
            return m == method || (method == "HEAD" && m == "GET")
        }
        if let best, let params = routes[best.route].pattern.match(segments)?.0 {
            // Fields read in place, not a copy of the route (each a retain).
            return RouteMatch(pattern: routes[best.route].pattern.text, execution: routes[best.route].execution,
                              parameters: params, handler: routes[best.route].handler)
        }
        var allowed = Set(trie.matches(segments).map { routes[$0].method })
        if allowed.isEmpty { throw HTTPError.notFound("No route for \(path).") }
        if allowed.contains("GET") { allowed.insert("HEAD") }
        let allow = allowed.sorted().joined(separator: ", ")
        throw HTTPError(405, "method_not_allowed", "\(method) is not allowed here; allowed: \(allow).",
                        headers: ["Allow": allow])
    }
}

/// One registered route: method, path pattern, and the access rule it
/// carries (a label the layer above defines, such as `write admin`).
public struct RouteDescription: Sendable, Equatable {
    public let method: String
    public let path: String
    public let access: String?
}

/// Collects routes while a `Router` is built.
public struct RouteTable {
    struct Entry {
        let method: String
        let path: String
        let execution: RouteExecution
        let handler: RouteHandler
        var access: String? = nil
    }

    var entries: [Entry] = []

    /// `access` labels the rule the handler enforces, so the table can be
    /// listed (`Router.described`) with the rule where it was registered.
    public mutating func add(_ method: String, _ path: String, _ execution: RouteExecution, access: String? = nil,
                             _ handler: @escaping HTTPHandler) {
        entries.append(Entry(method: method, path: path, execution: execution, handler: .direct(handler), access: access))
    }

    /// A route whose handler answers later (see `HTTPDeferredHandler`).
    public mutating func addDeferred(_ method: String, _ path: String, access: String? = nil,
                                     _ handler: @escaping HTTPDeferredHandler) {
        entries.append(Entry(method: method, path: path, execution: .inline, handler: .deferred(handler), access: access))
    }

    public mutating func get(_ path: String, _ handler: @escaping HTTPHandler) { add("GET", path, .pool, handler) }
    /// A GET answered on the event loop by `fast` when it can (see
    /// `RouteHandler.fast`), else by `handler` on the pool.
    public mutating func get(_ path: String, access: String? = nil, fast: @escaping HTTPFastHandler,
                             _ handler: @escaping HTTPHandler) {
        entries.append(Entry(method: "GET", path: path, execution: .pool, handler: .fast(fast, slow: handler), access: access))
    }
    /// A GET answered on the event loop itself: only for handlers that never block.
    public mutating func getInline(_ path: String, _ handler: @escaping HTTPHandler) { add("GET", path, .inline, handler) }
    public mutating func post(_ path: String, _ handler: @escaping HTTPHandler) { add("POST", path, .pool, handler) }
    /// A POST whose handler may wait long (see `RouteExecution.blocking`).
    public mutating func postBlocking(_ path: String, _ handler: @escaping HTTPHandler) { add("POST", path, .blocking, handler) }
    public mutating func patch(_ path: String, _ handler: @escaping HTTPHandler) { add("PATCH", path, .pool, handler) }
    public mutating func put(_ path: String, _ handler: @escaping HTTPHandler) { add("PUT", path, .pool, handler) }
    public mutating func delete(_ path: String, _ handler: @escaping HTTPHandler) { add("DELETE", path, .pool, handler) }
}
