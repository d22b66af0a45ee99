import Core
import Store
import HTTP
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Several hubs on one PostgreSQL database, through the real binary
/// (SPEC §14): they share the checks instead of both running them, and an
/// outage alerts once and recovers once even when one hub is killed.
@Suite(.enabled(if: TestEngine.all.contains(.postgres))) struct ClusterE2ETests {
    /// Two hubs on one fresh PostgreSQL schema; the second joins the first's database.
    struct Pair {
        let a: HubProcess
        let b: HubProcess
        let token: String

        init() throws {
            a = try HubProcess(engine: .postgres)
            b = try HubProcess(admin: false, databaseURL: a.sandbox.environment["PINGTXT_DATABASE_URL"]!)
            token = try a.token()
            // Both beat every 3 s: after two beats each has seen the other.
            usleep(7_000_000)
        }

        func node(_ hub: HubProcess) throws -> String {
            try #require(try expectJSON(try hub.call("GET", "/healthz"))["node"]?.stringValue)
        }

        func checksRun(_ hub: HubProcess) throws -> Int {
            let text = try hub.call("GET", "/metrics", token: token).text
            let line = text.split(separator: "\n").first { $0.hasPrefix("pingtxt_checks_total ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }
    }

    /// Eight monitors at 10 s on one target: each is checked once per
    /// interval in total (never two checks of one monitor within an
    /// interval), and both hubs run checks.
    @Test func checksRunOncePerIntervalAndAreShared() throws {
        let pair = try Pair()
        #expect(try pair.node(pair.a) != pair.node(pair.b))
        let target = try StandInServer(StandInServer.Route.everyPath(methods: ["GET"]) { _ in .text(200, "ok") })
        for i in 0..<8 {
            _ = try expectJSON(try pair.a.call("POST", "/api/monitors", token: pair.token, json: [
                "name": .string("m\(i)"), "type": "http", "target": .string(target.baseURL + "/m\(i)"),
                "interval": 10, "timeout": 5, "retries": 0,
            ]), 201)
        }
        // The second hub learns of the monitors within a beat; the creation
        // checks and the hand-over are over after one interval.
        usleep(12_000_000)
        let (startA, startB) = (try pair.checksRun(pair.a), try pair.checksRun(pair.b))
        usleep(31_000_000)
        let arrivals = target.exchanges
        let (endA, endB) = (try pair.checksRun(pair.a), try pair.checksRun(pair.b))
        // Only the requests of the measured window: the last ones per path.
        for i in 0..<8 {
            let times = arrivals.filter { $0.path == "/m\(i)" }.map { Int64($0.atNanos / 1_000_000) }
            let window = times.filter { $0 >= times.last! - 30_000 }
            #expect((3...4).contains(window.count), "m\(i): \(window.count) checks in 30 s at a 10 s interval")
            for (x, y) in zip(times.dropFirst(), times.dropFirst(2)) where x >= times.last! - 40_000 {
                #expect(y - x >= 7_000, "m\(i): two checks \(y - x) ms apart")
            }
        }
        #expect(endA > startA && endB > startB, "both hubs check: a \(startA)→\(endA), b \(startB)→\(endB)")
        #expect((endA - startA) + (endB - startB) <= 8 * 4, "no more checks than the monitors need")
    }

    /// An outage of one monitor: one `monitor_down` and one `monitor_up` at
    /// the webhook, when the hub that checks the monitor is killed during
    /// the outage (the other takes over) and when the other one is.
    @Test(arguments: [true, false]) func killDuringAnOutageStillAlertsOnceEach(killOwner: Bool) throws {
        let pair = try Pair()
        let receiver = try RecordingHTTPReceiver()
        let target = try SwitchableHTTPTarget()
        _ = try expectJSON(try pair.a.call("POST", "/api/channels", token: pair.token, json: [
            "name": "ops", "type": "webhook", "events": ["monitor_down", "monitor_up"],
            "config": ["url": .string(receiver.baseURL + "/hook"), "secret": "k"],
        ]), 201)
        let monitor = try expectJSON(try pair.a.call("POST", "/api/monitors", token: pair.token, json: [
            "name": "api", "type": "http", "target": .string(target.healthURL), "interval": 10, "timeout": 3, "retries": 0,
        ]), 201)
        let id = try #require(monitor["id"]?.intValue)
        let nodes = [try pair.node(pair.a), try pair.node(pair.b)]
        let ownerIsA = Rendezvous.owner(of: id, among: nodes.sorted()) == nodes[0]
        let (owner, other) = ownerIsA ? (pair.a, pair.b) : (pair.b, pair.a)
        // A first result that is already down sends nothing (SPEC §6): wait
        // for the owner's first check, up, before the outage starts.
        try Pages.waitUntil("the first check", timeoutMillis: 25_000) {
            let m = try expectJSON(try pair.a.call("GET", "/api/monitors/\(id)", token: pair.token))
            return m["last_check"] != nil && m["last_check"] != .null
        }

        func events(_ kind: String) -> [String] {
            receiver.received.compactMap { r -> String? in
                guard let body = try? JSON.parse(r.body), body["event"]?.stringValue == kind else { return nil }
                return body["id"]?.stringValue
            }
        }
        target.setStatus(503)
        Pages.waitUntil("the down alert", timeoutMillis: 25_000) { !events("monitor_down").isEmpty }
        if events("monitor_down").isEmpty {
            let results = try? pair.a.call("GET", "/api/monitors/\(id)/results", token: pair.token).text
            Issue.record("no down alert; owner \(ownerIsA ? "a" : "b"), results \(results ?? "-")\na:\n\(pair.a.log.suffix(2500))\nb:\n\(pair.b.log.suffix(2500))")
            return
        }
        let survivor = killOwner ? other : owner
        // Kill only once the down alert is recorded as sent. A hub killed
        // between sending a row and recording it leaves the row claimed; the
        // leader hands it out again and it is sent a second time with the
        // same id (at least once, docs/postgres.md): a receiver that honours
        // `X-Pingtxt-Delivery` sees it once, but the count below would not.
        let db = try Database(url: DatabaseURL(pair.a.sandbox.environment["PINGTXT_DATABASE_URL"]!), readers: 1)
        defer { db.close() }
        Pages.waitUntil("the down alert recorded as sent", timeoutMillis: 10_000) {
            (try? db.read { c in try c.scalar("SELECT count(*) FROM outbox WHERE status = 'sent'")?.integerValue }) == 1
        }
        (killOwner ? owner : other).kill9()
        target.setStatus(200)
        // The dead hub is dead to the other after 12 s; its monitor is then
        // checked on the survivor's grid within one interval.
        Pages.waitUntil("the up alert", timeoutMillis: 45_000) { !events("monitor_up").isEmpty }
        usleep(3_000_000)
        #expect(Set(events("monitor_down")).count == 1 && Set(events("monitor_up")).count == 1,
                "down \(events("monitor_down")), up \(events("monitor_up")); survivor's log:\n\(survivor.log.suffix(3000))")
        #expect(events("monitor_down").count == 1 && events("monitor_up").count == 1, "each delivered once")
        let incidents = try expectJSON(try survivor.call("GET", "/api/incidents?monitor_id=\(id)", token: pair.token))
        #expect(incidents["items"]?.arrayValue?.count == 1, "one incident: \(incidents)")
    }

    /// A heartbeat pinged only through the hub that does not judge it stays
    /// up (its owner learns of the pings each beat), and goes down once
    /// when the pings stop.
    @Test func heartbeatPingedThroughTheOtherHubStaysUpThenGoesDownOnce() throws {
        let pair = try Pair()
        let receiver = try RecordingHTTPReceiver()
        _ = try expectJSON(try pair.a.call("POST", "/api/channels", token: pair.token, json: [
            "name": "ops", "type": "webhook", "events": ["monitor_down", "monitor_up"],
            "config": ["url": .string(receiver.baseURL + "/hook"), "secret": "k"],
        ]), 201)
        let m = try expectJSON(try pair.a.call("POST", "/api/monitors", token: pair.token, json: [
            "name": "backup", "type": "heartbeat", "heartbeat": ["period": 10, "grace": 10],
        ]), 201)
        let id = try #require(m["id"]?.intValue)
        let key = try #require(m["ping_url"]?.stringValue?.split(separator: "/").last.map(String.init))
        let nodes = [try pair.node(pair.a), try pair.node(pair.b)]
        let notOwner = Rendezvous.owner(of: id, among: nodes.sorted()) == nodes[0] ? pair.b : pair.a
        // 40 s of pings every 5 s, all to the hub that does not judge it:
        // without them reaching the owner it would be late after 20 s.
        for _ in 0..<8 {
            #expect(try notOwner.connect().request("GET", "/ping/\(key)").status == 200)
            usleep(5_000_000)
            #expect(try expectJSON(try pair.a.call("GET", "/api/monitors/\(id)", token: pair.token))["status"]?.stringValue == "up")
        }
        func kinds() -> [String] { receiver.received.compactMap { (try? JSON.parse($0.body))?["event"]?.stringValue } }
        #expect(kinds().isEmpty)
        Pages.waitUntil("the down alert", timeoutMillis: 40_000) { kinds() == ["monitor_down"] }
        usleep(4_000_000)
        #expect(kinds() == ["monitor_down"], "\(kinds())")
    }

    /// Wake-ups between hubs (SPEC §14, "check-now and agent long polls work
    /// whichever hub the request reaches"). The test speaks the agent
    /// protocol to hub B only, with 25 s long polls; hub A gets the admin
    /// calls. Without the wake-up channel the poll would end only after its
    /// 25 s, and the check-now would report the agent missing after 15 s.
    @Test func checkNowAndNewAssignmentsReachAnAgentParkedOnTheOtherHub() throws {
        let pair = try Pair()
        let created = try expectJSON(try pair.a.call("POST", "/api/agents", token: pair.token, json: ["name": "eu"]), 201)
        let agentToken = try #require(created["token"]?.stringValue)
        let agentID = try #require(created["id"]?.intValue)
        let portB = pair.b.port
        func agent(_ method: String, _ target: String, json: JSON? = nil) throws -> WireResponse {
            try pair.b.call(method, target, token: agentToken, json: json, headers: [("User-Agent", "pingtxt-agent/0.9.1")])
        }
        // B accepts the token made through A, and A sees the agent B serves.
        try Pages.waitUntil("hub B knows the agent", timeoutMillis: 10_000) { try agent("GET", "/api/agent/monitors").status == 200 }
        let etag = try #require(try agent("GET", "/api/agent/monitors").header("ETag"))
        try Pages.waitUntil("hub A sees the agent online", timeoutMillis: 10_000) {
            try expectJSON(try pair.a.call("GET", "/api/agents/\(agentID)", token: pair.token))["status"] == "online"
        }

        // 1. A monitor created through A is assigned to the agent parked on B.
        func poll() -> TimedCall { TimedCall(port: portB, "GET", "/api/agent/poll?wait=25", token: agentToken) }
        let parked = poll()
        usleep(500_000)
        let monitor = try expectJSON(try pair.a.call("POST", "/api/monitors", token: pair.token, json: [
            "name": "api", "type": "http", "target": "http://127.0.0.1:9/", "interval": 60, "timeout": 3, "retries": 0,
            "locations": ["eu"],
        ]), 201)
        let id = try #require(monitor["id"]?.intValue)
        let woken = parked.result()
        #expect(woken.millis >= 0 && woken.millis < 10_000, "the parked poll ended after \(woken.millis) ms, not its 25 s")
        #expect(woken.json?["checks"] == [] && woken.json?["monitors_etag"]?.stringValue != etag, "\(String(describing: woken.json))")
        let assigned = try expectJSON(try agent("GET", "/api/agent/monitors"))["monitors"]?.arrayValue ?? []
        #expect(assigned.map { $0["id"] } == [.int(id)])

        // 2. A check-now asked of A reaches the agent's poll parked on B, and
        //    the answer uploaded to B comes back to A's check-now.
        func startCheckNow() -> TimedCall {
            TimedCall(port: pair.a.port, "POST", "/api/monitors/\(id)/check", token: pair.token)
        }
        func answerAndExpect(_ poll: (json: JSON?, millis: Int64), _ checker: TimedCall, _ what: String) throws {
            #expect(poll.millis >= 0 && poll.millis < 10_000, "\(what): the poll answered after \(poll.millis) ms")
            let checks = poll.json?["checks"]?.arrayValue ?? []
            #expect(checks.map { $0["monitor_id"] } == [.int(id)], "\(what): \(String(describing: poll.json))")
            let requestID = try #require(checks.first?["request_id"]?.stringValue)
            let uploaded = try expectJSON(try agent("POST", "/api/agent/results", json: ["results": [[
                "monitor_id": .int(id), "at": .int(Time.nowMillis()), "status": "down", "latency_ms": 31, "status_code": 503,
                "error": "HTTP 503", "request_id": .string(requestID),
            ]]]))
            #expect(uploaded["accepted"] == 1)
            let (answer, millis) = checker.result()
            let results = answer?["results"]?.arrayValue ?? []
            #expect(answer?["missing_locations"] == [], "\(what): \(String(describing: answer))\nA:\n\(pair.a.log.suffix(2000))")
            #expect(results.map { $0["location"] } == ["eu"] && results.first?["status"] == "down"
                    && results.first?["status_code"] == 503, "\(what): \(results)")
            #expect(millis >= 0 && millis < 12_000, "\(what): the check-now took \(millis) ms (it gives up after 15 s)")
        }
        let waiting = poll()
        usleep(500_000)
        let checker = startCheckNow()
        try answerAndExpect(waiting.result(), checker, "poll parked first")

        // 3. Asked while no poll is parked anywhere: the agent's next poll,
        //    on B, gets the request at once.
        let early = startCheckNow()
        usleep(1_000_000)
        let late = poll()
        try answerAndExpect(late.result(), early, "poll after the request")
    }
}

/// An HTTP call on a thread of its own (a long poll, a check-now): its
/// JSON answer and how long it took.
private final class TimedCall: Sendable {
    private let answer = Mutex<(json: JSON?, millis: Int64)>((nil, -1))
    private let thread = Mutex<ThreadHandle?>(nil)

    init(port: UInt16, _ method: String, _ target: String, token: String) {
        let handle = startThread(name: "timed-call") { [self] in
            let started = Time.monotonicNanos()
            let r = try? WireClient(port: port).request(method, target, headers: [("Authorization", "Bearer \(token)")])
            let json = r.flatMap { $0.status == 200 ? try? $0.json() : nil }
            answer.withLock { $0 = (json, Int64((Time.monotonicNanos() - started) / 1_000_000)) }
        }
        thread.withLock { $0 = handle }
    }

    /// Waits for the answer.
    func result() -> (json: JSON?, millis: Int64) {
        thread.withLock { t in defer { t = nil }; return t }?.join()
        return answer.withLock { $0 }
    }
}
