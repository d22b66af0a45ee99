import Core
import Store
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A running hub with a write token, and the calls the monitoring tests
/// repeat: create a monitor, run its check now, read it, its incidents, and
/// the domain events the hub wrote (read from the database file, as the
/// alerting side that consumes them is not built yet).
final class MonitoringHub {
    let hub: HubProcess
    private(set) var token = ""

    /// `start: false` leaves time to put files in the sandbox (then `start()`).
    init(environment: [String: String] = [:], engine: TestEngine = .sqlite, start: Bool = true) throws {
        hub = try HubProcess(environment: environment, engine: engine, start: false)
        if start { try self.start() }
    }

    func start() throws {
        try hub.start()
        token = try hub.token()
    }

    /// The hub's database (SQLite file or PostgreSQL schema), opened beside the running hub.
    func openDatabase() throws -> Database { try Database(url: hub.sandbox.databaseURL, readers: 1) }

    func call(_ method: String, _ target: String, json: JSON? = nil) throws -> WireResponse {
        try hub.call(method, target, token: token, json: json)
    }

    /// `POST /api/monitors` → the created monitor (201 required).
    func create(_ body: JSON, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        try expectJSON(try call("POST", "/api/monitors", json: body), 201, sourceLocation: sourceLocation)
    }

    /// Creates a monitor, then waits for the check the hub runs at once on
    /// creation to land, so later checks are the test's own.
    func createChecked(_ body: JSON, sourceLocation: SourceLocation = #_sourceLocation) throws -> (id: Int64, monitor: JSON) {
        let created = try create(body, sourceLocation: sourceLocation)
        let id = try #require(created["id"]?.intValue, sourceLocation: sourceLocation)
        let checked = try waitFor("first check of monitor \(id)", sourceLocation: sourceLocation) { m in
            m["last_check"] != .null && m["last_check"] != nil
        } in: { try self.monitor(id) }
        return (id, checked)
    }

    func monitor(_ id: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        try expectJSON(try call("GET", "/api/monitors/\(id)"), sourceLocation: sourceLocation)
    }

    /// `POST /api/monitors/{id}/check` → `{monitor, results}`.
    @discardableResult
    func check(_ id: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        try expectJSON(try call("POST", "/api/monitors/\(id)/check"), sourceLocation: sourceLocation)
    }

    /// The monitor's incidents, newest first.
    func incidents(_ id: Int64, status: String? = nil) throws -> [JSON] {
        let q = status.map { "&status=\($0)" } ?? ""
        return try expectJSON(try call("GET", "/api/incidents?monitor_id=\(id)\(q)"))["items"]?.arrayValue ?? []
    }

    func incident(_ id: Int64) throws -> JSON {
        try expectJSON(try call("GET", "/api/incidents/\(id)"))
    }

    /// The events written for a monitor, oldest first.
    func events(_ monitorID: Int64) throws -> [EventRecord] {
        let db = try openDatabase()
        return try db.read { try Events.list($0, monitorID: monitorID, afterID: 0, limit: 1000) }
    }

    /// The heartbeat pings stored for a monitor, newest first.
    func pings(_ monitorID: Int64) throws -> [PingRecord] {
        let db = try openDatabase()
        return try db.read { try Heartbeats.recent($0, monitorID: monitorID, limit: 100) }
    }

    /// Polls `read` until `predicate` holds (bounded); records an issue and
    /// returns the last value otherwise.
    @discardableResult
    func waitFor(_ what: String, timeoutMillis: Int = 10_000, sourceLocation: SourceLocation = #_sourceLocation,
                 _ predicate: (JSON) -> Bool, in read: () throws -> JSON) throws -> JSON {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        var last = try read()
        while !predicate(last) {
            guard Time.monotonicNanos() < deadline else {
                Issue.record("timed out waiting for \(what); last: \(last.text)", sourceLocation: sourceLocation)
                return last
            }
            usleep(100_000)
            last = try read()
        }
        return last
    }

    /// Waits until the monitor's status is `status`.
    @discardableResult
    func waitForStatus(_ id: Int64, _ status: String, timeoutMillis: Int = 10_000,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        try waitFor("monitor \(id) to be \(status)", timeoutMillis: timeoutMillis, sourceLocation: sourceLocation) {
            $0["status"]?.stringValue == status
        } in: { try self.monitor(id) }
    }
}

extension JSON {
    /// A number as Double (ints included).
    var numberValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
}

/// An http monitor body with short timings; `extra` keys replace defaults.
/// The interval is long so that only the test's own `check` calls (and the
/// check on creation) run.
func httpMonitor(_ name: String, _ url: String, retries: Int64 = 0, _ extra: [(String, JSON)] = []) -> JSON {
    var o = JSONObject([("name", .string(name)), ("type", "http"), ("target", .string(url)),
                        ("interval", 3600), ("timeout", 5), ("retries", .int(retries))])
    for (k, v) in extra { o[k] = v }
    return .object(o)
}

func monitorBody(_ name: String, type: String, target: String?, _ extra: [(String, JSON)] = []) -> JSON {
    var o = JSONObject([("name", .string(name)), ("type", .string(type)), ("target", .from(target)),
                        ("interval", 3600), ("timeout", 5), ("retries", 0)])
    for (k, v) in extra { o[k] = v }
    return .object(o)
}
