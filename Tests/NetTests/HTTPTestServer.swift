import Core
import HTTP

/// Our own server on a kernel-picked loopback port, with routes for the tests.
func makeHTTPServer(host: String = "127.0.0.1", loops: Int = 2) throws -> HTTPServer {
    var config = ServerConfiguration()
    config.host = host
    config.port = 0
    config.eventLoops = loops
    config.workers = 4
    config.accessLog = false
    config.maxConnections = 20_000
    let big = [UInt8](repeating: 120, count: 3 << 20)
    let router = Router { r in
        r.getInline("/ok") { _ in .text(200, "hello") }
        r.getInline("/fail") { _ in .text(503, "down") }
        r.post("/echo") { req in
            var h = HTTPHeaders()
            h.add("X-Method", req.method)
            return HTTPResponse(status: 200, headers: h, body: req.body)
        }
        r.get("/method") { req in .text(200, "\(req.method) \(req.body.count) \(req.headers["Content-Type"] ?? "-")") }
        r.getInline("/big") { _ in HTTPResponse(status: 200, body: big) }
        r.getInline("/r/rel") { _ in redirect(302, "final?from=rel") }
        r.getInline("/r/final") { req in .text(200, "final \(req.head.query)") }
        r.getInline("/r/abs") { req in redirect(301, "http://\(req.headers["Host"] ?? "")/ok") }
        r.getInline("/r/loop") { _ in redirect(302, "/r/loop") }
        r.post("/r/see-other") { _ in redirect(303, "/method") }
        r.add("PUT", "/r/temp", .inline) { _ in redirect(307, "/echo2") }
        r.add("PUT", "/echo2", .pool) { req in .text(200, "\(req.method) \(String(decoding: req.body, as: UTF8.self))") }
        r.getInline("/r/chain/{n}") { req in
            let n = try req.intParameter("n")
            return n <= 1 ? .text(200, "done") : redirect(302, "/r/chain/\(n - 1)")
        }
        r.getInline("/headers") { req in
            .text(200, req.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
        }
    }
    return try HTTPServer(configuration: config, router: router)
}

private func redirect(_ status: Int, _ location: String) -> HTTPResponse {
    var h = HTTPHeaders()
    h.add("Location", location)
    return HTTPResponse(status: status, headers: h, body: Array("moved".utf8))
}
