import Core
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Stopping, crashing, restarting and backing up a running hub.
@Suite struct LifecycleTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func signalStopsGracefullyWithStatusZero(signal: Int32) throws {
        let hub = try HubProcess()
        let idle = try hub.connect()
        #expect(try idle.request("GET", "/healthz").status == 200)   // an open keep-alive connection

        let status = hub.stop(signal: signal, timeoutMillis: 10_000)
        #expect(status == .exited(0), "exit: \(status.map { "\($0)" } ?? "still running after 10 s")")
        #expect(idle.waitForClose(), "the idle keep-alive connection is closed")
        #expect(hub.log.contains("stopped"), "log:\n\(hub.log)")
    }

    @Test func inFlightRequestIsFinishedBeforeExit() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let body = Array("{\"email\":\"late@example.com\",\"password\":\"late-password\"}".utf8)
        let c = try hub.connect()
        // Accepted for sure: one answered request on this connection.
        #expect(try c.request("GET", "/healthz").status == 200)
        // The head is parsed for sure: the interim 100 Continue came back.
        c.send("POST /api/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
               + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
        #expect(c.readResponse()?.status == 100)
        // Then the stop signal, then the body.
        kill(hub.pid, SIGTERM)
        #expect(hub.waitForLog { $0.contains("stopping") })
        let sent = c.send(body)
        let r = try #require(c.readResponse(), "no answer (body sent: \(sent)); log:\n\(hub.log)")
        #expect(r.status == 201, "\(r.text)")
        #expect(r.header("Connection") == "close")
        let status = hub.stop(signal: SIGTERM, timeoutMillis: 10_000)
        #expect(status == .exited(0))

        // The user it created was flushed: it is there after a restart.
        try hub.start()
        let users = try expectJSON(try hub.call("GET", "/api/users", token: token))
        #expect(users.text.contains("late@example.com"))
    }

    @Test func dataSurvivesKillNine() throws {
        let hub = try HubProcess()
        let admin = try hub.token()
        let user = try expectJSON(try hub.call("POST", "/api/users", token: admin,
                                               json: ["email": "durable@example.com", "role": "admin", "password": "durable-password"]), 201)
        let created = try expectJSON(try hub.call("POST", "/api/tokens", token: admin, json: ["name": "durable", "scope": "write"]), 201)
        let secret = try #require(created["token"]?.stringValue)

        try hub.restart(hard: true)
        let me = try expectJSON(try hub.call("GET", "/api/me", token: secret))
        #expect(me["email"]?.stringValue == HubProcess.adminEmail)
        let shown = try expectJSON(try hub.call("GET", "/api/users/\(user["id"]?.intValue ?? 0)", token: secret))
        #expect(shown == user)
        let tokens = try expectJSON(try hub.call("GET", "/api/tokens", token: secret))
        #expect((tokens["items"]?.arrayValue ?? []).contains { $0["name"]?.stringValue == "durable" })
        // No second first-start admin, no duplicate.
        let all = try expectJSON(try hub.call("GET", "/api/users", token: secret))
        #expect(all["items"]?.arrayValue?.count == 2)
    }

    @Test func backupOfARunningHubOpensAndHoldsTheUsers() throws {
        let hub = try HubProcess()
        let admin = try hub.token()
        for i in 1...2 {
            _ = try expectJSON(try hub.call("POST", "/api/users", token: admin,
                                            json: ["email": .string("kept\(i)@example.com"), "password": "kept-password"]), 201)
        }
        let out = hub.sandbox.path("backup.db")
        let backup = try hub.cli(["backup", "--out", out])
        #expect(backup.status == .exited(0), "\(backup.stderr)")
        #expect(Sandbox.fileExists(out))
        // The hub keeps serving.
        #expect(try hub.call("GET", "/api/me", token: admin).status == 200)

        // A second hub on the backup, on its own port.
        let restored = try HubProcess(admin: false, database: out)
        #expect(!restored.log.contains("no users yet"))
        let token = try restored.token()
        let users = try expectJSON(try restored.call("GET", "/api/users", token: token))
        let emails = (users["items"]?.arrayValue ?? []).compactMap { $0["email"]?.stringValue }
        #expect(Set(emails) == [HubProcess.adminEmail, "kept1@example.com", "kept2@example.com"])
        // The original hub's token is in the backup too.
        #expect(try restored.call("GET", "/api/me", token: admin).status == 200)
    }
}
