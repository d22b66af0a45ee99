import HTTP
import Testing

private func ok(_ name: String) -> HTTPHandler { { _ in .text(200, name) } }

private func routeError(_ router: Router, _ method: String, _ path: String) -> HTTPError? {
    do {
        _ = try router.match(method: method, path: path)
        return nil
    } catch {
        return error
    }
}

@Suite struct RouterTests {
    static let router = Router { r in
        r.get("/", ok("root"))
        r.getInline("/healthz", ok("health"))
        r.get("/api/users", ok("list"))
        r.post("/api/users", ok("create"))
        r.get("/api/users/{id}", ok("show"))
        r.patch("/api/users/{id}", ok("update"))
        r.delete("/api/users/{id}", ok("delete"))
        r.get("/api/users/me", ok("me"))
        r.get("/api/users/{id}/tokens/{token}", ok("token"))
        r.put("/api/settings", ok("settings"))
        r.post("/api/login", ok("login"))
        r.get("/files/{a}/x", ok("ax"))
        r.get("/files/y/{b}", ok("yb"))
        r.get("/slash/", ok("slash"))
    }

    @Test(arguments: [
        ("GET", "/", "/", [:]),
        ("GET", "", "/", [:]),
        ("GET", "/healthz", "/healthz", [:]),
        ("GET", "/api/users", "/api/users", [:]),
        ("POST", "/api/users", "/api/users", [:]),
        ("GET", "/api/users/42", "/api/users/{id}", ["id": "42"]),
        ("PATCH", "/api/users/42", "/api/users/{id}", ["id": "42"]),
        ("DELETE", "/api/users/42", "/api/users/{id}", ["id": "42"]),
        ("GET", "/api/users/me", "/api/users/me", [:]),               // literal beats parameter
        ("PATCH", "/api/users/me", "/api/users/{id}", ["id": "me"]),  // …but only for its method
        ("GET", "/api/users/7/tokens/abc", "/api/users/{id}/tokens/{token}", ["id": "7", "token": "abc"]),
        ("GET", "/files/y/x", "/files/{a}/x", ["a": "y"]),            // equal scores: first registered wins
        ("GET", "/files/y/z", "/files/y/{b}", ["b": "z"]),
        ("GET", "/slash/", "/slash/", [:]),
    ] as [(String, String, String, [String: String])])
    func matches(method: String, path: String, pattern: String, parameters: [String: String]) throws {
        let m = try Self.router.match(method: method, path: path)
        #expect(m.pattern == pattern)
        #expect(m.parameters.dictionary == parameters)
    }

    @Test func executionModeIsKept() throws {
        #expect(try Self.router.match(method: "GET", path: "/healthz").execution == .inline)
        #expect(try Self.router.match(method: "GET", path: "/api/users").execution == .pool)
    }

    @Test func handlerIsTheMatchedRoute() throws {
        let m = try Self.router.match(method: "GET", path: "/api/users/me")
        let head = HTTPRequestHead(method: "GET", target: "/api/users/me", path: "/api/users/me", query: "",
                                   version: .http1_1, headers: HTTPHeaders(), framing: .none,
                                   keepAlive: true, expectsContinue: false)
        guard case .direct(let handler) = m.handler else {
            Issue.record("expected a direct handler")
            return
        }
        let response = try handler(HTTPRequest(head: head, body: [], clientAddress: "127.0.0.1"))
        #expect(response.body == Array("me".utf8))
    }

    @Test(arguments: [
        ("/api/users/42", "/api/users/{id}"),
        ("/api/users", "/api/users"),
        ("/healthz", "/healthz"),
        ("/api/users/me", "/api/users/me"),
    ])
    func headIsServedByGet(path: String, pattern: String) throws {
        #expect(try Self.router.match(method: "HEAD", path: path).pattern == pattern)
    }

    @Test(arguments: [
        "/nope", "/api", "/api/users/42/tokens", "/api/users/42/tokens/", "/API/users",
        "/api/users/", "/healthz/", "/slash", "//", "/api//users", "/api/users//",
    ])
    func unknownPathsAre404(path: String) throws {
        let e = try #require(routeError(Self.router, "GET", path))
        #expect(e.status == 404)
        #expect(e.code == "not_found")
        #expect(e.headers["Allow"] == nil)
    }

    @Test(arguments: [
        ("DELETE", "/api/users", "GET, HEAD, POST"),
        ("PUT", "/api/users/42", "DELETE, GET, HEAD, PATCH"),
        ("POST", "/api/users/me", "DELETE, GET, HEAD, PATCH"),
        ("GET", "/api/settings", "PUT"),
        ("HEAD", "/api/settings", "PUT"),
        ("GET", "/api/login", "POST"),
        ("OPTIONS", "/healthz", "GET, HEAD"),
        ("get", "/healthz", "GET, HEAD"),   // methods are case-sensitive
    ])
    func wrongMethodIs405WithSortedAllow(method: String, path: String, allow: String) throws {
        let e = try #require(routeError(Self.router, method, path))
        #expect(e.status == 405)
        #expect(e.code == "method_not_allowed")
        #expect(e.headers == ["Allow": allow])
        #expect(e.message == "\(method) is not allowed here; allowed: \(allow).")
    }

    @Test(arguments: [
        ("/api/users/a%20b", "a b"),
        ("/api/users/a+b", "a+b"),            // `+` is not a space in paths
        ("/api/users/a%2Bb", "a+b"),
        ("/api/users/a%2Fb", "a/b"),          // decoded after splitting
        ("/api/users/%C3%A9t%C3%A9", "été"),
        ("/api/users/%e2%82%ac", "€"),
        ("/api/users/%zz", "%zz"),            // malformed escapes stay
        ("/api/users/100%", "100%"),
        ("/api/users/%4", "%4"),
        ("/api/users/%FF", "\u{FFFD}"),       // invalid UTF-8 is repaired
        ("/api/users/%00", "\u{0}"),
    ])
    func parametersArePercentDecoded(path: String, value: String) throws {
        let m = try Self.router.match(method: "GET", path: path)
        #expect(m.pattern == "/api/users/{id}")
        #expect(m.parameters["id"] == value)
    }

    @Test func pathParametersAreLookedUpByName() throws {
        let router = Router { r in r.get("/a/{x}/b/{y}", ok("xy")) }
        let m = try router.match(method: "GET", path: "/a/1/b/two")
        #expect(m.parameters["x"] == "1" && m.parameters["y"] == "two" && m.parameters["z"] == nil)
        #expect(m.parameters == ["y": "two", "x": "1"], "compared as name → value, in any order")
        #expect(m.parameters.dictionary == ["x": "1", "y": "two"])
        #expect(try router.match(method: "GET", path: "/a/1/b/2").parameters != m.parameters)
        let repeated: PathParameters = ["k": "first", "k": "last"]
        #expect(repeated["k"] == "last" && repeated.dictionary == ["k": "last"], "the last of a name, as a dictionary keeps")
        #expect(try Router { r in r.get("/plain", ok("p")) }.match(method: "GET", path: "/plain").parameters.isEmpty)
    }

    /// Literal segments compare with the raw path: an encoded literal does not match.
    @Test func literalSegmentsAreNotDecoded() throws {
        #expect(try Self.router.match(method: "GET", path: "/api/users/%6De").parameters["id"] == "me")
        #expect(routeError(Self.router, "GET", "/api/%75sers")?.status == 404)
    }

    @Test func emptySegmentsDoNotMatchParameters() throws {
        let r = Router { r in
            r.get("/a/{x}/b", ok("x"))
            r.get("/{y}", ok("y"))
        }
        #expect(routeError(r, "GET", "/a//b")?.status == 404)
        #expect(routeError(r, "GET", "/")?.status == 404)
        #expect(try r.match(method: "GET", path: "/a/1/b").parameters == ["x": "1"])
        #expect(try r.match(method: "GET", path: "/q").parameters == ["y": "q"])
    }

    /// Trailing slashes are significant: `/a/` is a different path from `/a`,
    /// never redirected or aliased; `/` and the empty path are the same.
    @Test func trailingSlashIsSignificant() throws {
        let r = Router { r in
            r.get("/a", ok("a"))
            r.get("/b/", ok("b"))
            r.get("/c/{id}", ok("c"))
        }
        #expect(try r.match(method: "GET", path: "/a").pattern == "/a")
        #expect(routeError(r, "GET", "/a/")?.status == 404)
        #expect(try r.match(method: "GET", path: "/b/").pattern == "/b/")
        #expect(routeError(r, "GET", "/b")?.status == 404)
        #expect(routeError(r, "GET", "/c/")?.status == 404)
        #expect(routeError(r, "GET", "/c/1/")?.status == 404)
        #expect(try r.match(method: "GET", path: "a").pattern == "/a")   // a leading slash is optional
    }

    @Test func literalBeatsParameterRegardlessOfOrder() throws {
        let r = Router { r in
            r.get("/{a}/{b}", ok("pp"))
            r.get("/{a}/x", ok("px"))
            r.get("/x/x", ok("xx"))
        }
        #expect(try r.match(method: "GET", path: "/x/x").pattern == "/x/x")
        #expect(try r.match(method: "GET", path: "/y/x").pattern == "/{a}/x")
        #expect(try r.match(method: "GET", path: "/y/y").pattern == "/{a}/{b}")
    }

    @Test func emptyRouterIs404() {
        let r = Router { _ in }
        #expect(routeError(r, "GET", "/")?.status == 404)
    }

    /// The tree walk picks what a scan of every route in registration order
    /// picks (the highest score, the first registered on a tie, else 405
    /// with the methods of every matching pattern, else 404), on random
    /// tables and paths over a small alphabet so that they collide a lot.
    @Test func treeAgreesWithAScanOfEveryRoute() throws {
        var seed: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        let words = ["a", "me"]
        let methods = ["GET", "POST", "PATCH"]
        for _ in 0..<200 {
            var table: [(method: String, pattern: String)] = []
            for _ in 0..<(1 + next(16)) {
                let segments = (0..<next(4)).map { i in next(3) == 0 ? "{p\(i)}" : words[next(words.count)] }
                table.append((methods[next(methods.count)], "/" + segments.joined(separator: "/")))
            }
            let router = Router { r in
                for (i, route) in table.enumerated() { r.add(route.method, route.pattern, .pool, ok("\(i)")) }
            }
            for _ in 0..<40 {
                let path = "/" + (0..<next(4)).map { _ in next(6) == 0 ? "" : words[next(words.count)] }
                    .joined(separator: "/")
                let method = next(5) == 0 ? "HEAD" : methods[next(methods.count)]
                let expected = Self.scan(table, method: method, path: path)
                do {
                    let m = try router.match(method: method, path: path)
                    #expect(expected.pattern == m.pattern && expected.parameters == m.parameters.dictionary,
                            "\(method) \(path) in \(table)")
                } catch {
                    #expect(expected.pattern == nil && expected.status == error.status
                            && expected.allow == error.headers["Allow"], "\(method) \(path) in \(table)")
                }
            }
        }
    }

    /// The reference: every route in order, literal segments counted.
    static func scan(_ table: [(method: String, pattern: String)], method: String, path: String)
        -> (pattern: String?, parameters: [String: String], status: Int, allow: String?) {
        func split(_ p: String) -> [String] {
            let s = p.hasPrefix("/") ? String(p.dropFirst()) : p
            return s.isEmpty ? [] : s.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        }
        let parts = split(path)
        var best: (pattern: String, parameters: [String: String], score: Int)?
        var allowed: Set<String> = []
        for route in table {
            let segs = split(route.pattern)
            guard segs.count == parts.count else { continue }
            var score = 0, params: [String: String] = [:], fits = true
            for (seg, part) in zip(segs, parts) {
                if seg.hasPrefix("{") {
                    if part.isEmpty { fits = false; break }
                    params[String(seg.dropFirst().dropLast())] = part
                } else if seg == part {
                    score += 1
                } else {
                    fits = false
                    break
                }
            }
            guard fits else { continue }
            allowed.insert(route.method)
            if route.method == method || (method == "HEAD" && route.method == "GET"), best == nil || score > best!.score {
                best = (route.pattern, params, score)
            }
        }
        if let best { return (best.pattern, best.parameters, 200, nil) }
        if allowed.isEmpty { return (nil, [:], 404, nil) }
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return (nil, [:], 405, allowed.sorted().joined(separator: ", "))
    }
}
