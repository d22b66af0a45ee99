import Core
import Synchronization

/// Request counters for `/metrics`: requests by route and status, requests
/// in flight. Routes, not raw paths, label the series so ids in paths cannot
/// blow up their number.
public final class HTTPMetrics: Sendable {
    private struct Key: Hashable { let method: String; let route: String; let status: Int }
    /// `last` counts a run of requests with the same key before it goes
    /// into `counts`: a loop answering one route again and again compares
    /// three fields (the strings are usually the router's own, compared by
    /// identity) instead of hashing them (2 % of `/api/me`'s instructions).
    private struct Tally: Sendable {
        var counts: [Key: Int] = [:]
        var last: Key?
        var lastCount = 0
        var sum = 0.0
        var count = 0

        mutating func add(_ key: Key) {
            if key == last { lastCount += 1; return }
            settle()
            last = key
            lastCount = 1
        }

        /// Moves the current run into `counts`.
        mutating func settle() {
            if let last, lastCount > 0 { counts[last, default: 0] += lastCount }
            lastCount = 0
        }
    }
    private final class Shard: Sendable { let tally = Mutex(Tally()) }
    /// One tally per event loop (by its index, modulo the count): each loop
    /// counts under a lock nobody else takes but `render`, where one shared
    /// lock had both loops meet at every request.
    private let shards: [Shard]
    public let inFlight = Atomic<Int>(0)
    public let openConnections = Atomic<Int>(0)

    public init() { shards = (0..<8).map { _ in Shard() } }

    func record(shard: Int, method: String, route: String, status: Int, seconds: Double) {
        shards[shard % shards.count].tally.withLock { t in
            t.add(Key(method: method, route: route, status: status))
            t.sum += seconds
            t.count += 1
        }
    }

    private var merged: Tally {
        var total = Tally()
        for shard in shards {
            shard.tally.withLock { t in
                t.settle()
                for (key, n) in t.counts { total.counts[key, default: 0] += n }
                total.sum += t.sum
                total.count += t.count
            }
        }
        return total
    }

    /// Prometheus text exposition of these metrics.
    public func render(into out: inout PrometheusText) {
        out.family("pingtxt_http_requests_total", .counter, help: "HTTP requests answered, by method, route and status.")
        let tally = merged
        for (key, n) in tally.counts.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            out.sample("pingtxt_http_requests_total", ["method": key.method, "route": key.route, "status": String(key.status)], n)
        }
        out.family("pingtxt_http_request_duration_seconds", .summary, help: "Time from a request's end to its answer being queued.")
        out.sample("pingtxt_http_request_duration_seconds_sum", tally.sum)
        out.sample("pingtxt_http_request_duration_seconds_count", tally.count)
        out.family("pingtxt_http_requests_in_flight", .gauge, help: "Requests being handled now.")
        out.sample("pingtxt_http_requests_in_flight", inFlight.load(ordering: .relaxed))
        out.family("pingtxt_http_open_connections", .gauge, help: "Open client connections.")
        out.sample("pingtxt_http_open_connections", openConnections.load(ordering: .relaxed))
    }
}
