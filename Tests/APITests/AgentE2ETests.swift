import Core
import Store
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The hub side of remote agents through the running binary, with the test
/// playing the agents over plain HTTP (docs/agents.md).
@Suite struct AgentE2ETests {
    /// A fake agent: its token and the calls a real agent makes.
    struct FakeAgent {
        let hub: MonitoringHub
        let id: Int64
        let name: String
        let token: String

        func call(_ method: String, _ target: String, json: JSON? = nil, headers: [(String, String)] = []) throws -> WireResponse {
            try hub.hub.call(method, target, token: token, json: json,
                             headers: [("User-Agent", "pingtxt-agent/0.9.1")] + headers)
        }

        func monitors(ifNoneMatch: String? = nil) throws -> WireResponse {
            try call("GET", "/api/agent/monitors", headers: ifNoneMatch.map { [("If-None-Match", $0)] } ?? [])
        }

        func upload(_ results: [JSON]) throws -> WireResponse {
            try call("POST", "/api/agent/results", json: ["results": .array(results)])
        }

        func poll(wait: Int) throws -> JSON {
            try expectJSON(try call("GET", "/api/agent/poll?wait=\(wait)"))
        }
    }

    func addAgent(_ hub: MonitoringHub, _ name: String) throws -> FakeAgent {
        let created = try expectJSON(try hub.call("POST", "/api/agents", json: ["name": .string(name)]), 201)
        let token = try #require(created["token"]?.stringValue)
        return FakeAgent(hub: hub, id: try #require(created["id"]?.intValue), name: name, token: token)
    }

    static func result(_ monitorID: Int64, at: Int64, _ status: String, requestID: String? = nil) -> JSON {
        var o = JSONObject([("monitor_id", .int(monitorID)), ("at", .int(at)), ("status", .string(status)),
                            ("latency_ms", 31), ("status_code", status == "up" ? 200 : 503),
                            ("error", status == "up" ? .null : "HTTP 503")])
        if let requestID { o["request_id"] = .string(requestID) }
        return .object(o)
    }

    /// One request on a fresh connection, from any thread (captures no test object).
    static func send(_ port: UInt16, _ method: String, _ target: String, token: String) throws -> WireResponse {
        try WireClient(port: port).request(method, target, headers: [("Authorization", "Bearer \(token)")])
    }

    func waitUntil(_ what: String, timeoutMillis: Int = 15_000, _ done: () -> Bool) {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
            usleep(50_000)
        }
    }

    @Test func adminAPITokenKindsAndMonitorsWithETag() throws {
        let hub = try MonitoringHub()
        let created = try expectJSON(try hub.call("POST", "/api/agents", json: ["name": "eu-west"]), 201)
        let token = try #require(created["token"]?.stringValue)
        #expect(token.hasPrefix("pmg_") && token.utf8.count == 47)
        #expect(created["status"] == "pending" && created["last_seen_at"] == .null && created["poll_interval"] == 10)
        let agent = FakeAgent(hub: hub, id: try #require(created["id"]?.intValue), name: "eu-west", token: token)
        expectError(try hub.call("POST", "/api/agents", json: ["name": "eu-west"]), 409, "name_taken")
        expectError(try hub.call("POST", "/api/agents", json: ["name": "hub"]), 409, "name_taken")
        expectError(try hub.call("POST", "/api/agents", json: ["name": "EU_west"]), 400, "validation_failed", field: "name")
        let listed = try expectJSON(try hub.call("GET", "/api/agents"))["items"]?.arrayValue ?? []
        #expect(listed.map { $0["name"] } == ["eu-west"] && listed.allSatisfy { $0["token"] == nil }, "the token is shown once")

        // Token kinds: pmg_ only on /api/agent/*, and nothing else there.
        expectError(try hub.hub.call("GET", "/api/monitors", token: token), 403, "agent_token")
        expectError(try hub.hub.call("GET", "/api/agents", token: token), 403, "agent_token")
        expectError(try hub.call("GET", "/api/agent/monitors"), 403, "agent_token_required")
        expectError(try hub.hub.call("GET", "/api/agent/poll?wait=0", token: hub.token), 403, "agent_token_required")
        expectError(try hub.hub.call("GET", "/api/agent/monitors"), 401, "unauthorized")
        expectError(try hub.hub.call("GET", "/api/agent/monitors", token: "pmg_" + String(repeating: "A", count: 43)), 401)
        let readonly = try hub.hub.token(scope: "read", name: "ro")
        expectError(try hub.hub.call("POST", "/api/agents", token: readonly, json: ["name": "x"]), 403, "insufficient_scope")

        // Assignment: empty locations or naming the agent; not paused, not heartbeats.
        let remote = try hub.create(httpMonitor("remote", "http://127.0.0.1:9/", [("locations", ["eu-west"])]))
        let local = try hub.create(httpMonitor("local", "http://127.0.0.1:9/", [("locations", ["hub"])]))
        _ = try hub.create(monitorBody("beat", type: "heartbeat", target: nil))
        let first = try agent.monitors()
        let doc = try expectJSON(first)
        let etag = try #require(first.header("ETag"))
        #expect(doc["agent"]?["name"] == "eu-west" && doc["poll_interval"] == 10)
        let monitors = doc["monitors"]?.arrayValue ?? []
        #expect(monitors.map { $0["id"] } == [remote["id"]])
        #expect(monitors.first?["target"] == "http://127.0.0.1:9/" && monitors.first?["http"]?["method"] == "GET")
        #expect(monitors.first?["status"] == nil && monitors.first?["last_check"] == nil, "configuration only")
        let again = try agent.monitors(ifNoneMatch: etag)
        #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == etag)
        #expect(try agent.monitors(ifNoneMatch: "\"stale\"").status == 200)
        let localID = try #require(local["id"]?.intValue)
        _ = try expectJSON(try hub.call("PATCH", "/api/monitors/\(localID)", json: ["locations": []]))
        let changed = try agent.monitors(ifNoneMatch: etag)
        #expect(changed.status == 200 && changed.header("ETag") != etag)
        #expect(try expectJSON(changed)["monitors"]?.arrayValue?.count == 2)
        #expect(try agent.poll(wait: 0)["monitors_etag"]?.stringValue == changed.header("ETag"))

        // The agent as the admin sees it now.
        let shown = try expectJSON(try hub.call("GET", "/api/agents/\(agent.id)"))
        #expect(shown["status"] == "online" && shown["version"] == "0.9.1" && shown["address"] == "127.0.0.1")
        #expect(shown["last_seen_at"]?.stringValue != nil)
        #expect(try hub.call("GET", "/metrics").text.contains("pingtxt_agents{status=\"online\"} 1"))

        // Deleting it revokes the token at once.
        #expect(try hub.call("DELETE", "/api/agents/\(agent.id)").status == 204)
        expectError(try agent.monitors(), 401)
        expectError(try hub.call("DELETE", "/api/agents/\(agent.id)"), 404)
    }

    @Test func quorumOfTwoAgentsAndIdempotentUploads() throws {
        let hub = try MonitoringHub()
        let eu = try addAgent(hub, "eu"), us = try addAgent(hub, "us")
        // Remote-only: the hub itself never checks it.
        let monitor = try hub.create(httpMonitor("api", "http://127.0.0.1:9/",
                                                 [("locations", ["eu", "us"]), ("confirm_locations", 2)]))
        let id = try #require(monitor["id"]?.intValue)
        let t = Time.nowMillis()
        func upload(_ agent: FakeAgent, _ results: [JSON]) throws -> JSON { try expectJSON(try agent.upload(results)) }
        #expect(try upload(eu, [Self.result(id, at: t, "up")]) == ["accepted": 1, "ignored": 0])
        #expect(try upload(us, [Self.result(id, at: t + 1, "up")]) == ["accepted": 1, "ignored": 0])
        #expect(try hub.monitor(id)["status"] == "up")

        #expect(try upload(eu, [Self.result(id, at: t + 1_000, "down")])["accepted"] == 1)
        #expect(try hub.monitor(id)["status"] == "up", "1 of 2 locations is below confirm_locations")
        let usDown = Self.result(id, at: t + 1_001, "down")
        #expect(try upload(us, [usDown])["accepted"] == 1)
        let down = try hub.monitor(id)
        #expect(down["status"] == "down" && down["last_check"]?["location"] == "us")
        let incident = try #require(try hub.incidents(id, status: "open").first)
        #expect(incident["locations"] == ["eu", "us"] && incident["cause"] == "HTTP 503")

        // A retried upload stores nothing twice; other monitors' results are ignored.
        #expect(try upload(us, [usDown, Self.result(id + 1000, at: t, "up")]) == ["accepted": 0, "ignored": 2])
        let usResults = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results?location=us"))["items"]?.arrayValue ?? []
        #expect(usResults.count == 2)
        #expect(try hub.events(id).map(\.kind) == ["monitor_down"])

        // Malformed uploads are refused whole.
        expectError(try eu.upload([Self.result(id, at: t + 2_000, "up"), ["monitor_id": .int(id), "at": 5, "status": "sideways"]]),
                    400, "validation_failed", field: "results[1].status")
        expectError(try eu.upload(Array(repeating: Self.result(id, at: t, "up"), count: 501)), 400, "validation_failed", field: "results")
        expectError(try eu.call("POST", "/api/agent/results", json: ["results": "x"]), 400, "validation_failed")
        #expect(try hub.monitor(id)["last_check"]?["location"] == "us", "nothing of a refused upload was stored")

        #expect(try upload(eu, [Self.result(id, at: t + 3_000, "up")])["accepted"] == 1)
        #expect(try hub.monitor(id)["status"] == "up")
    }

    @Test func checkNowReachesAgentsThroughTheLongPoll() throws {
        let hub = try MonitoringHub()
        let eu = try addAgent(hub, "eu"), us = try addAgent(hub, "us")
        let monitor = try hub.create(httpMonitor("api", "http://127.0.0.1:9/", [("locations", ["eu", "us"])]))
        let id = try #require(monitor["id"]?.intValue)
        _ = try us.monitors()   // us is online but will not poll
        expectError(try eu.call("GET", "/api/agent/poll?wait=31"), 400, "validation_failed", field: "wait")

        let polled = Mutex<JSON?>(nil)
        let pollStarted = Time.monotonicNanos()
        let port = hub.hub.port
        let (euToken, adminToken) = (eu.token, hub.token)
        let poller = startThread(name: "fake-agent-poll") {
            let r = try? Self.send(port, "GET", "/api/agent/poll?wait=25", token: euToken)
            polled.withLock { $0 = r.flatMap { $0.status == 200 ? try? $0.json() : nil } }
        }
        usleep(300_000)   // the poll is parked before the check starts
        let answer = Mutex<JSON?>(nil)
        let checker = startThread(name: "check-now") {
            let r = try? Self.send(port, "POST", "/api/monitors/\(id)/check", token: adminToken)
            answer.withLock { $0 = r.flatMap { $0.status == 200 ? try? $0.json() : nil } }
        }
        poller.join()
        #expect(Time.monotonicNanos() - pollStarted < 10_000_000_000, "the poll answered as soon as there was work")
        let checks = try #require(polled.withLock { $0 })["checks"]?.arrayValue ?? []
        #expect(checks.count == 1 && checks.first?["monitor_id"] == .int(id))
        let requestID = try #require(checks.first?["request_id"]?.stringValue)
        let uploaded = try expectJSON(try eu.upload([Self.result(id, at: Time.nowMillis(), "down", requestID: requestID)]))
        #expect(uploaded["accepted"] == 1)
        checker.join()
        let result = try #require(answer.withLock { $0 })
        #expect(result["results"]?.arrayValue?.map { $0["location"] } == ["eu"], "the hub is not a location of this monitor")
        #expect(result["results"]?.arrayValue?.first?["status"] == "down")
        #expect(result["results"]?.arrayValue?.first?["status_code"] == 503)
        #expect(result["missing_locations"] == ["us"])
        #expect(result["monitor"]?["last_check"]?["location"] == "eu")
        // The request was withdrawn: us's next poll gets nothing.
        #expect(try us.poll(wait: 0)["checks"] == [])
    }

    @Test func silentAgentGoesOfflineAndBackWithWebhookAlerts() throws {
        let receiver = try RecordingHTTPReceiver()
        let hub = try MonitoringHub(environment: ["PINGTXT_AGENTS_POLL_INTERVAL": "1"])
        _ = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "agents", "type": "webhook", "events": ["agent_offline", "agent_online"],
            "config": ["url": .string(receiver.baseURL + "/hook")],
        ]), 201)
        let edge = try addAgent(hub, "edge")
        #expect(try edge.poll(wait: 0)["checks"] == [])
        #expect(try expectJSON(try hub.call("GET", "/api/agents/\(edge.id)"))["status"] == "online")
        func events() -> [JSON] { receiver.received.compactMap { try? JSON.parse($0.body) } }

        // Silent for 3 × 1 s.
        waitUntil("agent_offline") { events().count == 1 }
        let offline = try #require(events().first)
        #expect(offline["event"] == "agent_offline" && offline["locations"] == ["edge"] && offline["monitor"] == .null)
        #expect(offline["incident_id"] == .null)
        #expect(receiver.received.first?.bodyText.contains("Agent edge is offline") == true)
        #expect(try expectJSON(try hub.call("GET", "/api/agents/\(edge.id)"))["status"] == "offline")

        #expect(try edge.poll(wait: 0)["checks"] == [])
        waitUntil("agent_online") { events().count == 2 }
        #expect(events().map { $0["event"] } == ["agent_offline", "agent_online"])
        #expect(events().last?["locations"] == ["edge"])
        #expect(receiver.received.last?.bodyText.contains("Agent edge is online again") == true)
    }

    @Test func shutdownAnswersParkedPollsAndRestartKeepsAgentsOnline() throws {
        let hub = try MonitoringHub(environment: ["PINGTXT_AGENTS_POLL_INTERVAL": "2"])
        let edge = try addAgent(hub, "edge")
        _ = try edge.monitors()
        let port = hub.hub.port, token = edge.token
        let polled = Mutex<WireResponse?>(nil)
        let poller = startThread(name: "parked-poll") {
            polled.withLock { $0 = try? Self.send(port, "GET", "/api/agent/poll?wait=25", token: token) }
        }
        usleep(500_000)   // parked
        let started = Time.monotonicNanos()
        let status = hub.hub.stop(signal: SIGTERM, timeoutMillis: 10_000)
        #expect(status == .exited(0))
        #expect(Time.monotonicNanos() - started < 5_000_000_000, "a parked poll does not hold the shutdown")
        poller.join()
        let answer = try #require(polled.withLock { $0 })
        #expect(answer.status == 200 && (try? answer.json())?["checks"] == [])

        try hub.start()
        #expect(try expectJSON(try hub.call("GET", "/api/agents/\(edge.id)"))["status"] == "online")
        #expect(try edge.poll(wait: 1)["checks"] == [], "its token still works")
        #expect(try expectJSON(try hub.call("GET", "/api/agents/\(edge.id)"))["status"] == "online",
                "a full timeout after the restart, not offline at once")
        let db = try hub.openDatabase()
        let kinds = try db.read { try Events.list($0, monitorID: nil, afterID: 0, limit: 100) }.map(\.kind)
        #expect(!kinds.contains("agent_offline"))
    }
}
