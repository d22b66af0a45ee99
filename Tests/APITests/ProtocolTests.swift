import Core
import Testing

/// HTTP/1.1 behaviour seen through the binary: HEAD, Expect: 100-continue,
/// keep-alive and pipelining.
@Suite struct ProtocolTests {
    @Test func headHealthzHasLengthButNoBody() throws {
        let hub = try HubProcess()
        let c = try hub.connect()
        let head = try c.request("HEAD", "/healthz")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "35")   // {"status":"ok","database":"sqlite"}
        #expect(head.body.isEmpty)
        // Had a body followed the head, this next answer would not parse.
        let get = try c.request("GET", "/healthz")
        #expect(get.status == 200)
        #expect(get.text == "{\"status\":\"ok\",\"database\":\"sqlite\"}")
        #expect(c.pending.isEmpty)
    }

    @Test func expectContinueGetsTheInterimAnswerBeforeTheBody() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let body = Array("{\"email\":\"cont@example.com\",\"password\":\"continue-password\"}".utf8)
        let c = try hub.connect()
        c.send("POST /api/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
               + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
        let interim = try #require(c.readResponse())
        #expect(interim.status == 100)
        c.send(body)
        let created = try #require(c.readResponse())
        #expect(created.status == 201, "\(created.text)")
        #expect((try? created.json())?["email"]?.stringValue == "cont@example.com")
    }

    @Test func keepAliveAndPipelinedRequestsAnswerInOrder() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let c = try hub.connect()
        let auth = [("Authorization", "Bearer \(token)")]
        var bytes: [UInt8] = []
        bytes += WireClient.encode("GET", "/api/me", headers: auth)
        bytes += WireClient.encode("GET", "/healthz")
        bytes += WireClient.encode("GET", "/api/nope", headers: auth)
        bytes += WireClient.encode("GET", "/api/tokens", headers: auth)
        c.send(bytes)
        let statuses = (0..<4).compactMap { _ in c.readResponse()?.status }
        #expect(statuses == [200, 200, 404, 200])
        // Connection: close is honoured.
        c.send(WireClient.encode("GET", "/healthz", headers: [("Connection", "close")]))
        let last = c.readResponse()
        #expect(last?.header("Connection") == "close")
        #expect(c.waitForClose())
    }
}
