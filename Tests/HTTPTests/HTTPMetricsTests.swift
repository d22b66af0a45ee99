import Core
@testable import HTTP
import Testing

/// `HTTPMetrics`: a run of requests with one key is counted apart from the
/// table until the key changes or the metrics are read; nothing is lost or
/// counted twice either way.
@Suite struct HTTPMetricsTests {
    private func counts(_ metrics: HTTPMetrics) -> [String: String] {
        var text = PrometheusText()
        metrics.render(into: &text)
        var found: [String: String] = [:]
        for line in text.text.split(separator: "\n") where line.hasPrefix("pingtxt_http_requests_total{") {
            let parts = line.split(separator: " ")
            found[String(parts[0])] = String(parts[1])
        }
        return found
    }

    @Test func runsAndChangesOfKeyAreAllCounted() {
        let metrics = HTTPMetrics()
        let me = "pingtxt_http_requests_total{method=\"GET\",route=\"/api/me\",status=\"200\"}"
        let health = "pingtxt_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"}"
        let refused = "pingtxt_http_requests_total{method=\"GET\",route=\"/api/me\",status=\"401\"}"
        for _ in 0..<3 { metrics.record(shard: 0, method: "GET", route: "/api/me", status: 200, seconds: 0.001) }
        metrics.record(shard: 0, method: "GET", route: "/healthz", status: 200, seconds: 0.001)
        metrics.record(shard: 0, method: "GET", route: "/api/me", status: 200, seconds: 0.001)
        metrics.record(shard: 1, method: "GET", route: "/api/me", status: 401, seconds: 0.001)
        #expect(counts(metrics) == [me: "4", health: "1", refused: "1"])
        // Read in the middle of a run: the run goes on from where it was.
        metrics.record(shard: 0, method: "GET", route: "/api/me", status: 200, seconds: 0.001)
        #expect(counts(metrics)[me] == "5")
        metrics.record(shard: 0, method: "GET", route: "/api/me", status: 200, seconds: 0.001)
        metrics.record(shard: 0, method: "GET", route: "/healthz", status: 200, seconds: 0.001)
        #expect(counts(metrics) == [me: "6", health: "2", refused: "1"])
    }
}
