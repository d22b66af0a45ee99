import Core
import HTTP
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Socket-level tests of the server: a real server on a loopback port,
/// a raw client sending exact bytes.
@Suite struct ServerTests {
    static func makeServer(_ tweak: (inout ServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
        var config = ServerConfiguration()
        config.port = 0
        config.eventLoops = 2
        config.workers = 4
        config.accessLog = false
        tweak(&config)
        let router = Router { r in
            r.getInline("/hello") { _ in .json(200, "{\"hello\":true}") }
            r.get("/slow") { req in
                usleep(UInt32(Int(req.query("ms") ?? "100")! * 1000))
                return .text(200, "slow \(req.query("n") ?? "")")
            }
            r.get("/fast") { req in .text(200, "fast \(req.query("n") ?? "")") }
            r.post("/echo") { req in HTTPResponse(status: 200, body: req.body) }
            r.get("/users/{id}") { req in .text(200, "user \(try req.intParameter("id"))") }
            r.delete("/users/{id}") { _ in .noContent() }
            r.get("/client") { req in .text(200, "\(req.clientAddress) \(req.scheme)") }
            r.get("/boom") { _ in throw SystemError("boom", errno: EIO) }
            r.get("/maybe", fast: { req in req.query("hit") == nil ? nil : .text(200, "fast on \(threadName())") }) { _ in
                .text(200, "pool on \(threadName())")
            }
        }
        return try HTTPServer(configuration: config, router: router)
    }

    @Test func answersWithDateAndContentLength() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let r = try #require(c.readResponse())
        #expect(r.status == 200)
        #expect(r.text == "{\"hello\":true}")
        #expect(r.header("Content-Length") == "14")
        #expect(r.header("Date")?.hasSuffix(" GMT") == true)
        #expect(r.header("Content-Type") == "application/json")
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        for i in 0..<5 {
            c.send("GET /fast?n=\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
            let r = try #require(c.readResponse())
            #expect(r.text == "fast \(i)")
            #expect(r.header("Connection") == nil)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        // The first handler is the slowest; its answer must still come first.
        c.send("GET /slow?ms=150&n=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /fast?n=2 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /slow?ms=20&n=4 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(c.readResponse()?.text == "slow 1")
        #expect(c.readResponse()?.text == "fast 2")
        #expect(c.readResponse()?.text == "{\"hello\":true}")
        #expect(c.readResponse()?.text == "slow 4")
    }

    /// A fast handler answers on the loop when it can, else the pool handler
    /// does; pipelined answers keep their order either way.
    @Test func aFastHandlerAnswersOnTheLoopOrDefersToThePool() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("GET /maybe?hit=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /maybe HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /slow?ms=100&n=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /maybe?hit=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try #require(c.readResponse()).text
        let second = try #require(c.readResponse()).text
        #expect(first.hasPrefix("fast on ") && !first.hasPrefix("fast on http-worker"), "\(first)")
        #expect(second.hasPrefix("pool on http-worker"), "\(second)")
        #expect(c.readResponse()?.text == "slow 1")
        #expect(c.readResponse()?.text.hasPrefix("fast on ") == true)
    }

    @Test func notFoundAndMethodNotAllowedAreJSON() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
        let r404 = try #require(c.readResponse())
        #expect(r404.status == 404)
        #expect(r404.text.hasPrefix("{\"error\":{\"code\":\"not_found\""))
        c.send("PUT /users/3 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        let r405 = try #require(c.readResponse())
        #expect(r405.status == 405)
        #expect(r405.header("Allow") == "DELETE, GET, HEAD")
        #expect(r405.text.contains("\"code\":\"method_not_allowed\""))
        c.send("GET /users/abc HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(c.readResponse()?.status == 404)
        c.send("GET /users/42 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(c.readResponse()?.text == "user 42")
    }

    @Test func headHasContentLengthButNoBody() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /fast?n=9 HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try #require(c.readResponse(headRequest: true))
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "14")
        #expect(head.body.isEmpty)
        #expect(c.readResponse()?.text == "fast 9")
    }

    @Test func postBodyIsDelivered() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world")
        #expect(c.readResponse()?.text == "hello world")
    }

    @Test func handlerErrorsBecome500WithoutDetails() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("GET /boom HTTP/1.1\r\nHost: x\r\n\r\n")
        let r = try #require(c.readResponse())
        #expect(r.status == 500)
        #expect(r.text.contains("internal_error"))
        #expect(!r.text.contains("boom"))
    }

    @Test func http10ClosesUnlessKeepAlive() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("GET /hello HTTP/1.0\r\n\r\n")
        let r = try #require(c.readResponse())
        #expect(r.status == 200)
        #expect(r.header("Connection") == "close")
        #expect(c.waitForClose())
        let k = try TestClient(port: server.port)
        k.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(k.readResponse()?.header("Connection") == "keep-alive")
        k.send("GET /fast?n=2 HTTP/1.0\r\n\r\n")
        #expect(k.readResponse()?.text == "fast 2")
    }

    @Test func connectionCloseIsHonoured() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("GET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(c.readResponse()?.header("Connection") == "close")
        #expect(c.waitForClose())
    }

    @Test func trustedProxyHeadersOnlyFromTrustedPeers() throws {
        let open = try Self.makeServer()
        defer { open.shutdown() }
        let c = try TestClient(port: open.port)
        c.send("GET /client HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 1.2.3.4\r\nX-Forwarded-Proto: https\r\n\r\n")
        #expect(c.readResponse()?.text == "127.0.0.1 http")
        let trusted = try Self.makeServer { $0.trustedProxies = TrustedProxies { $0.hasPrefix("127.") } }
        defer { trusted.shutdown() }
        let t = try TestClient(port: trusted.port)
        t.send("GET /client HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 9.9.9.9, 1.2.3.4, 127.0.0.5\r\nX-Forwarded-Proto: https\r\n\r\n")
        #expect(t.readResponse()?.text == "1.2.3.4 https")
    }
}

/// The calling thread's name (`Core.startThread` names every thread).
func threadName() -> String {
    let fd = open("/proc/thread-self/comm", O_RDONLY)
    guard fd >= 0 else { return "?" }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 32)
    let n = read(fd, &buffer, buffer.count)
    return String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).trimmingSuffix { $0 == "\n" }
}

private extension String {
    func trimmingSuffix(_ drop: (Character) -> Bool) -> String {
        var s = Substring(self)
        while let last = s.last, drop(last) { s = s.dropLast() }
        return String(s)
    }
}
