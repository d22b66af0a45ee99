import Core
@testable import Monitoring
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The per-monitor families of `/metrics` (SPEC §13), read back through a
/// real exposition-format parser: `Tests/e2e/prometheus_parse.py`
/// (prometheus_client's text parser). `.ci/run` installs prometheus_client;
/// where it is missing the suite is skipped, with the reason shown.
@Suite(.enabled(if: PrometheusParser.available, "prometheus_client not importable by python3: pip install prometheus_client to run it"))
struct MonitorMetricsTests {
    @Test(arguments: TestEngine.all) func perMonitorSeriesParseAndCarryTheState(engine: TestEngine) throws {
        let good = try SwitchableHTTPTarget()
        let bad = try SwitchableHTTPTarget()
        bad.setStatus(503)
        let hub = try MonitoringHub(engine: engine)
        // A name with every character the format escapes in label values but the
        // line feed (monitor names are one line; the render test covers it).
        let tricky = #"API "edge" \ west"#
        let (upID, _) = try hub.createChecked(httpMonitor(tricky, good.healthURL))
        let (downID, _) = try hub.createChecked(httpMonitor("Broken", bad.healthURL))
        try hub.waitForStatus(downID, "down")
        let beat = try hub.create(["name": "nightly", "type": "heartbeat", "heartbeat": ["period": 60, "grace": 60]])
        let beatID = try #require(beat["id"]?.intValue)

        let text = try hub.call("GET", "/metrics").text
        let samples = try PrometheusParser.parse(text)
        func find(_ name: String, _ labels: [String: String]) -> [PrometheusParser.Sample] {
            samples.filter { s in s.name == name && labels.allSatisfy { s.labels[$0.key] == $0.value } }
        }
        let upLabels = ["monitor_id": String(upID), "name": tricky, "type": "http", "location": "hub"]
        #expect(find("pingtxt_monitor_up", upLabels).map(\.value) == [1], "\(text)")
        #expect(find("pingtxt_monitor_up", ["monitor_id": String(downID), "location": "hub"]).map(\.value) == [0])
        // Every status is present, 1 on the current one only.
        let statuses = find("pingtxt_monitor_status", upLabels)
        #expect(Set(statuses.compactMap { $0.labels["status"] }) == ["pending", "up", "degraded", "down", "paused"])
        #expect(statuses.filter { $0.value == 1 }.compactMap { $0.labels["status"] } == ["up"])
        #expect(find("pingtxt_monitor_status", ["monitor_id": String(downID), "status": "down"]).map(\.value) == [1])
        // The heartbeat has no ping yet: pending, and no up or latency sample.
        #expect(find("pingtxt_monitor_status", ["monitor_id": String(beatID), "location": "hub", "status": "pending"]).map(\.value) == [1])
        #expect(find("pingtxt_monitor_up", ["monitor_id": String(beatID)]).isEmpty)
        let latency = find("pingtxt_monitor_latency_seconds", upLabels)
        #expect(latency.count == 1 && (latency.first?.value ?? -1) >= 0 && (latency.first?.value ?? 99) < 5)
        #expect(find("pingtxt_monitor_latency_seconds", ["monitor_id": String(downID)]).isEmpty, "a failed check has no latency")
        #expect(find("pingtxt_incidents_open", ["kind": "down"]).map(\.value) == [1])
        #expect(!find("pingtxt_notifications_total", ["result": "failed"]).isEmpty)
        // Bounded labels: no family carries an id of a result or an incident.
        #expect(samples.allSatisfy { $0.labels["incident_id"] == nil && $0.labels["result_id"] == nil })
        MetricsTests.expectEveryFamilyDeclared(text)
        // The Grafana dashboard in docs/ asks only for families the hub serves.
        let dashboard = try JSON.parse(Sandbox.readFile(PythonOAuthClient.repoRoot + "/docs/grafana-dashboard.json"))
        let declared = Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
        var used = Set<String>()
        for panel in dashboard["panels"]?.arrayValue ?? [] {
            for target in panel["targets"]?.arrayValue ?? [] {
                let expr = target["expr"]?.stringValue ?? ""
                var rest = Substring(expr)
                while let r = rest.range(of: "pingtxt_") {
                    let name = rest[r.lowerBound...].prefix { $0.isLetter || $0 == "_" }
                    used.insert(String(name))
                    rest = rest[name.endIndex...]
                }
            }
        }
        #expect(used.count >= 6 && used.isSubset(of: declared), "dashboard uses \(used.subtracting(declared).sorted())")

        // Paused: every location says paused, and up goes away.
        _ = try hub.call("POST", "/api/monitors/\(downID)/pause")
        let paused = try PrometheusParser.parse(try hub.call("GET", "/metrics").text)
        #expect(paused.filter { $0.name == "pingtxt_monitor_status" && $0.labels["monitor_id"] == String(downID) && $0.value == 1 }
            .compactMap { $0.labels["status"] } == ["paused"])
        #expect(!paused.contains { $0.name == "pingtxt_monitor_up" && $0.labels["monitor_id"] == String(downID) })
        #expect(paused.contains { $0.name == "pingtxt_incidents_open" && $0.labels["kind"] == "down" && $0.value == 0 })

        // `?monitors=false`: the hub's own families, none of the per-monitor ones.
        let hubOnly = try hub.call("GET", "/metrics?monitors=false").text
        let hubSamples = try PrometheusParser.parse(hubOnly)
        #expect(hubSamples.contains { $0.name == "pingtxt_checks_total" })
        #expect(hubSamples.contains { $0.name == "pingtxt_incidents_open" })
        // The WAL's families exist where there is a WAL.
        #expect(hubSamples.contains { $0.name == "pingtxt_db_wal_pages" } == (engine == .sqlite))
        #expect(hubSamples.contains { $0.name == "pingtxt_db_wal_writer_checkpoints_total" } == (engine == .sqlite))
        #expect(!hubSamples.contains { $0.name.hasPrefix("pingtxt_monitor_") }, "\(hubOnly)")
        // Lateness as a histogram with fixed bounds, cumulative, +Inf = count.
        let buckets = hubSamples.filter { $0.name == "pingtxt_check_lateness_seconds_bucket" }
        #expect(buckets.compactMap { $0.labels["le"] }.first == "0.001")
        #expect(buckets.compactMap { $0.labels["le"] }.contains("2.5"))
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.value <= $1.value })
        let checks = hubSamples.first { $0.name == "pingtxt_check_lateness_seconds_count" }?.value ?? -1
        #expect(checks >= 2 && buckets.last?.labels["le"] == "+Inf" && buckets.last?.value == checks)
        MetricsTests.expectEveryFamilyDeclared(hubOnly)
        #expect(try hub.call("GET", "/metrics?monitors=maybe").status == 400)
    }

    @Test func latenessBoundsAreWrittenInSeconds() {
        #expect(MonitoringService.seconds(1) == "0.001")
        #expect(MonitoringService.seconds(250) == "0.25")
        #expect(MonitoringService.seconds(2_500) == "2.5")
        #expect(MonitoringService.seconds(60_000) == "60")
        #expect(SchedulerMetrics.latenessBoundsMs.map(MonitoringService.seconds).joined(separator: " ")
                == "0.001 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 30 60")
    }

    /// What a scrape cannot easily produce: a line feed in a label value, a
    /// certificate expiry (https and tls only), agent locations and the
    /// `retries` tolerance, rendered and parsed.
    @Test func renderedRowsParse() throws {
        func state(_ locations: [String: LocationState]) -> String {
            var s = MonitorState(status: .up, statusSince: 0)
            s.locations = locations
            return MonitorStateCoding.encode(s)
        }
        let rows = [
            MonitorMetricRow(id: 1, name: "line\nfeed \"q\" \\", type: "http", target: "https://example.com/", retries: 1, paused: false,
                             status: "up", locations: [],
                             state: state(["hub": LocationState(outcome: .down, consecutiveFailures: 1, lastLatencyMs: 40),
                                           "eu-west": LocationState(outcome: .up, lastLatencyMs: 250)]),
                             certNotAfter: 1_900_000_000),
            MonitorMetricRow(id: 2, name: "plain", type: "http", target: "http://example.com/", retries: 0, paused: false,
                             status: "up", locations: [], state: state(["hub": LocationState(outcome: .up, lastLatencyMs: 5)]),
                             certNotAfter: 1_900_000_000),
            MonitorMetricRow(id: 3, name: "tls", type: "tls", target: "example.com:443", retries: 0, paused: false,
                             status: "pending", locations: ["us-east"], state: "{}", certNotAfter: 1_800_000_000),
        ]
        var out = PrometheusText()
        MonitorSeries(hubLocation: "hub").render(rows, into: &out)
        let samples = try PrometheusParser.parse(out.text)
        let one = samples.filter { $0.labels["monitor_id"] == "1" }
        #expect(one.allSatisfy { $0.labels["name"] == "line\nfeed \"q\" \\" })
        // Within retries the hub still counts as up, though its last check failed.
        #expect(one.filter { $0.name == "pingtxt_monitor_up" }.map { "\($0.labels["location"]!)=\($0.value)" }.sorted()
            == ["eu-west=1.0", "hub=0.0"])
        #expect(one.filter { $0.name == "pingtxt_monitor_status" && $0.value == 1 }.map { $0.labels["status"]! } == ["up", "up"])
        #expect(one.filter { $0.name == "pingtxt_monitor_latency_seconds" }.map(\.value) == [0.25])
        let certs = samples.filter { $0.name == "pingtxt_monitor_cert_expiry_timestamp_seconds" }
        #expect(certs.map { "\($0.labels["monitor_id"]!)=\(Int64($0.value))" } == ["1=1900000000", "3=1800000000"])
        // No result yet: the named location, pending.
        #expect(samples.filter { $0.labels["monitor_id"] == "3" && $0.name == "pingtxt_monitor_status" && $0.value == 1 }
            .map { "\($0.labels["location"]!):\($0.labels["status"]!)" } == ["us-east:pending"])
    }
}

/// `Tests/e2e/prometheus_parse.py` run on a text.
enum PrometheusParser {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    static var script: String { PythonOAuthClient.repoRoot + "/Tests/e2e/prometheus_parse.py" }

    static let available: Bool = {
        guard let python = PythonOAuthClient.python else { return false }
        let out = try? Subprocess.run(python, ["-c", "import prometheus_client"], environment: PythonOAuthClient.environment,
                                      input: nil, timeoutMillis: 30_000)
        return out?.status == .exited(0)
    }()

    static func parse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Sample] {
        guard let python = PythonOAuthClient.python else { throw HarnessError("python3 not found on PATH") }
        let out = try Subprocess.run(python, [script], environment: PythonOAuthClient.environment, input: text, timeoutMillis: 60_000)
        try #require(out.status == .exited(0), "the parser refused the exposition: \(out.stderr)\n\(text)", sourceLocation: sourceLocation)
        return try out.stdout.split(separator: "\n").map { line in
            let json = try JSON.parse(String(line))
            var labels: [String: String] = [:]
            for (k, v) in json["labels"]?.objectValue?.entries ?? [] { labels[k] = v.stringValue }
            return Sample(name: json["name"]?.stringValue ?? "", labels: labels, value: json["value"]?.numberValue ?? .nan)
        }
    }
}

/// A measurement, not an assertion of speed: runs only with METRICS_BENCH=1.
/// One `/metrics` body for 100,000 monitors (SQLite, one result each).
@Suite struct MonitorMetricsBench {
    @Test(.enabled(if: getenv("METRICS_BENCH") != nil)) func scrapeOfAHundredThousandMonitors() throws {
        var template = Array("/tmp/pingtxt-metricsbench-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer { Sandbox.removeTree(dir) }
        let db = try Database(path: dir + "/bench.db")
        defer { db.close() }
        let service = MonitoringService(database: db, settings: MonitoringSettings())
        defer { service.stop() }
        var s = MonitorState(status: .up, statusSince: 0)
        s.locations = ["hub": LocationState(outcome: .up, lastAt: 1, lastLatencyMs: 42)]
        let state = MonitorStateCoding.encode(s)
        try db.write { c in
            for i in 0..<100_000 {
                var m = MonitorRecord(name: "monitor \(i)", type: "http", target: "https://example.com/\(i)", interval: 60, timeout: 5, retries: 0)
                m.state = state
                m.status = "up"
                _ = try Monitors.insert(c, m, now: 1)
            }
        }
        for _ in 0..<3 {
            let t = Time.monotonicNanos()
            var out = PrometheusText()
            service.metrics(into: &out)
            print("BENCH metrics monitors=100000 ms=\(Int((Double(Time.monotonicNanos() - t) / 1e6).rounded())) bytes=\(out.text.utf8.count)")
        }
        // Where the time goes: the read, the state decoding, the text.
        var t = Time.monotonicNanos()
        let rows = try db.read { try Monitors.metricRows($0) }
        let read = Time.monotonicNanos() - t
        t = Time.monotonicNanos()
        let series = MonitorSeries(hubLocation: "hub")
        let samples = rows.map { series.samples($0) }
        let decode = Time.monotonicNanos() - t
        t = Time.monotonicNanos()
        var out = PrometheusText()
        series.render(rows, into: &out)
        let render = Time.monotonicNanos() - t
        print("BENCH metrics parts read_ms=\(read / 1_000_000) samples_ms=\(decode / 1_000_000) render_ms=\(render / 1_000_000) n=\(samples.count)")
    }
}
