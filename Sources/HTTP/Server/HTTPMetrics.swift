import Core
import Synchronization

/// Request counters for `/metrics`: requests by route and status, requests
/// in flight. Routes, not raw paths, label the series so ids in paths cannot
/// blow up their number.
public final class HTTPMetrics: Sendable {
    private struct Key: Hashable { let method: String; let route: String; let status: Int }
    private let counts = Mutex<[Key: Int]>([:])
    private let durations = Mutex<(sum: Double, count: Int)>((0, 0))
    public let inFlight = Atomic<Int>(0)
    public let openConnections = Atomic<Int>(0)

    public init() {}

    func record(method: String, route: String, status: Int, seconds: Double) {
        counts.withLock { $0[Key(method: method, route: route, status: status), default: 0] += 1 }
        durations.withLock { $0.sum += seconds; $0.count += 1 }
    }

    /// Prometheus text exposition of these metrics.
    public func render(into out: inout PrometheusText) {
        out.family("pingtxt_http_requests_total", .counter, help: "HTTP requests answered, by method, route and status.")
        let snapshot = counts.withLock { $0 }
        for (key, n) in snapshot.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            out.sample("pingtxt_http_requests_total", ["method": key.method, "route": key.route, "status": String(key.status)], n)
        }
        let d = durations.withLock { $0 }
        out.family("pingtxt_http_request_duration_seconds", .summary, help: "Time from a request's end to its answer being queued.")
        out.sample("pingtxt_http_request_duration_seconds_sum", d.sum)
        out.sample("pingtxt_http_request_duration_seconds_count", d.count)
        out.family("pingtxt_http_requests_in_flight", .gauge, help: "Requests being handled now.")
        out.sample("pingtxt_http_requests_in_flight", inFlight.load(ordering: .relaxed))
        out.family("pingtxt_http_open_connections", .gauge, help: "Open client connections.")
        out.sample("pingtxt_http_open_connections", openConnections.load(ordering: .relaxed))
    }
}
