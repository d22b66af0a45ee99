import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Heartbeat monitors: pings over the public `/ping/{key}` URLs and the
/// watcher that takes a silent heartbeat down.
@Suite struct MonitoringHeartbeatTests {
    func heartbeat(_ hub: MonitoringHub, _ name: String) throws -> (id: Int64, path: String, monitor: JSON) {
        let m = try hub.create(["name": .string(name), "type": "heartbeat", "heartbeat": ["period": 10, "grace": 10]])
        let id = try #require(m["id"]?.intValue)
        let url = try #require(m["ping_url"]?.stringValue)
        let prefix = "http://127.0.0.1:\(hub.hub.port)"
        #expect(url.hasPrefix(prefix + "/ping/"), "ping_url \(url)")
        return (id, String(url.dropFirst(prefix.count)), m)
    }

    func ping(_ hub: MonitoringHub, _ path: String, method: String = "GET", body: [UInt8]? = nil) throws -> WireResponse {
        try hub.hub.connect().request(method, path, body: body)
    }

    @Test(arguments: TestEngine.all) func pingsDriveTheStatus(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let (id, path, created) = try heartbeat(hub, "backup")
        #expect(created["status"]?.stringValue == "pending")
        #expect(created["target"] == .null)
        #expect(created["heartbeat"]?["period"]?.intValue == 10)
        #expect(created["heartbeat"]?["grace"]?.intValue == 10)

        let ok = try ping(hub, path)
        #expect(ok.status == 200)
        #expect(try hub.monitor(id)["status"]?.stringValue == "up", "a ping commits before it is answered")

        #expect(try ping(hub, path + "/fail", method: "POST").status == 200)
        let down = try hub.monitor(id)
        #expect(down["status"]?.stringValue == "down")
        let incidentID = try #require(down["open_incident_id"]?.intValue)
        #expect(try hub.incident(incidentID)["cause"]?.stringValue == "failure ping")
        #expect(try hub.events(id).map(\.kind) == ["monitor_down"])

        #expect(try ping(hub, path + "/0").status == 200)
        #expect(try hub.monitor(id)["status"]?.stringValue == "up")
        #expect(try hub.incident(incidentID)["status"]?.stringValue == "closed")
        #expect(try hub.events(id).map(\.kind) == ["monitor_down", "monitor_up"])

        // An exit code other than 0 is a failure with that code.
        #expect(try ping(hub, path + "/3").status == 200)
        let failed = try hub.monitor(id)
        #expect(failed["status"]?.stringValue == "down")
        #expect(try hub.incident(try #require(failed["open_incident_id"]?.intValue))["cause"]?.stringValue == "exit code 3")
        #expect(try ping(hub, path, method: "HEAD").status == 200)
        #expect(try hub.monitor(id)["status"]?.stringValue == "up")

        // /start alone changes nothing at once.
        #expect(try ping(hub, path + "/start").status == 200)
        #expect(try hub.monitor(id)["status"]?.stringValue == "up")
        let kinds = try hub.pings(id).map(\.kind)
        #expect(kinds == ["start", "success", "fail", "success", "fail", "success"])
    }

    @Test(arguments: TestEngine.all) func unknownKeysAndSuffixesAre404(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let (_, path, _) = try heartbeat(hub, "job")
        expectError(try ping(hub, "/ping/no-such-key"), 404)
        expectError(try ping(hub, "/ping/no-such-key/fail", method: "POST"), 404)
        expectError(try ping(hub, path + "/256"), 404)
        expectError(try ping(hub, path + "/later"), 404)
    }

    @Test(arguments: TestEngine.all) func theBodyIsKeptUpTo10KiB(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let (id, path, _) = try heartbeat(hub, "logs")
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 12 * 1024)
        #expect(try ping(hub, path + "/fail", method: "POST", body: big).status == 200)
        #expect(try ping(hub, path, method: "POST", body: Array("done in 3s".utf8)).status == 200)
        let pings = try hub.pings(id)
        #expect(pings.count == 2)
        #expect(pings.first.map { String(decoding: $0.body, as: UTF8.self) } == "done in 3s")
        #expect(pings.last?.body.count == 10 * 1024)
        #expect(pings.last?.exitCode == nil)
    }

    /// Never pinged: down once period + grace (20 s) have passed since creation.
    @Test(arguments: TestEngine.all) func neverPingedGoesDownAfterPeriodPlusGrace(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let (id, _, _) = try heartbeat(hub, "silent")
        let started = Time.monotonicNanos()
        // Still pending well before the deadline.
        usleep(5_000_000)
        #expect(try hub.monitor(id)["status"]?.stringValue == "pending")
        let down = try hub.waitForStatus(id, "down", timeoutMillis: 25_000)
        let waited = Double(Time.monotonicNanos() - started) / 1e9
        #expect(waited >= 18, "down after \(waited) s")
        let incidentID = try #require(down["open_incident_id"]?.intValue)
        let cause = try hub.incident(incidentID)["cause"]?.stringValue ?? ""
        #expect(cause.hasPrefix("no ping for ") && cause.contains("period 10s + grace 10s"), "cause \(cause)")
        #expect(try hub.events(id).isEmpty, "out of pending: no event")
    }

    /// A start with no success: down once grace has passed since the start.
    @Test(arguments: TestEngine.all) func aStartWithoutSuccessGoesDownAfterGrace(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let (id, path, _) = try heartbeat(hub, "long job")
        #expect(try ping(hub, path).status == 200)
        // Ping times have one-second resolution and a start counts only when
        // strictly newer than the last success (HeartbeatEvaluator rule 3).
        usleep(1_100_000)
        #expect(try ping(hub, path + "/start").status == 200)
        #expect(try hub.monitor(id)["status"]?.stringValue == "up")
        let down = try hub.waitForStatus(id, "down", timeoutMillis: 18_000)
        let incidentID = try #require(down["open_incident_id"]?.intValue)
        let cause = try hub.incident(incidentID)["cause"]?.stringValue ?? ""
        #expect(cause.hasPrefix("started ") && cause.hasSuffix("no success ping"), "cause \(cause)")
        #expect(try hub.events(id).map(\.kind) == ["monitor_down"])
    }
}
