import Store
import Testing
import Core
import Notify

func channel(_ id: Int64, enabled: Bool = true, events: [EventKind], monitors: [Int64] = []) throws -> Channel {
    try Channel(id: id, name: "c\(id)", type: .webhook, enabled: enabled, events: events, monitorIDs: monitors, reminderMinutes: 0,
                config: JSONObject([("url", "https://x.example/")]))
}

@Suite struct RoutingTests {
    @Test func table() throws {
        let all = [
            try channel(1, events: [.monitorDown, .monitorUp]),
            try channel(2, events: [.monitorDown], monitors: [12]),
            try channel(3, enabled: false, events: [.monitorDown]),
            try channel(4, events: [.monitorUp], monitors: [13]),
            try channel(5, events: [.agentOffline]),
        ]
        let rows: [(EventKind, Int64?, Bool, [Int64])] = [
            (.monitorDown, 12, false, [1, 2]),
            (.monitorDown, 13, false, [1]),
            (.monitorDown, 12, true, []),      // maintenance: nothing
            (.monitorUp, 13, false, [1, 4]),
            (.monitorUp, 12, false, [1]),
            (.monitorDegraded, 12, false, []),
            (.agentOffline, nil, false, [5]),
        ]
        for (kind, monitor, suppressed, expected) in rows {
            let got = Routing.channels(for: kind, monitorID: monitor, suppressed: suppressed, among: all).map(\.id)
            #expect(got == expected, "\(kind) monitor \(String(describing: monitor)) suppressed \(suppressed)")
        }
    }
}

@Suite struct BackoffTests {
    @Test func scheduleWithoutJitterDoublesToCap() {
        let b = Backoff()
        // jitter 0.999… → the full delay; 0 → half.
        #expect((1...10).map { b.delay(afterAttempt: $0, retryAfter: nil, jitter: 0.9999999) } == [9, 19, 39, 79, 159, 319, 639, 1279, 1799, 1799])
        #expect((1...4).map { b.delay(afterAttempt: $0, retryAfter: nil, jitter: 0) } == [5, 10, 20, 40])
    }

    @Test func retryAfterIsAFloor() {
        let b = Backoff()
        #expect(b.delay(afterAttempt: 1, retryAfter: 120, jitter: 0) == 120)
        #expect(b.delay(afterAttempt: 8, retryAfter: 5, jitter: 0) == 640)
        #expect(b.delay(afterAttempt: 1, retryAfter: 99_999, jitter: 0) == 1800)
        #expect(Backoff.parseRetryAfter(" 30 ") == 30)
        #expect(Backoff.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        #expect(Backoff.parseRetryAfter(nil) == nil)
    }

    @Test func givesUpAfter24Hours() {
        // An injected clock: keep failing at the scheduled times.
        let b = Backoff()
        var now: Int64 = 1_000, attempts: Int64 = 0
        var schedule: [Int64] = []
        while true {
            attempts += 1
            guard let next = b.nextAttempt(now: now, createdAt: 1_000, attempts: attempts, retryAfter: nil, jitter: 0.5) else { break }
            schedule.append(next - now)
            now = next
        }
        #expect(Array(schedule.prefix(5)) == [7, 15, 30, 60, 120])
        #expect(now - 1_000 <= 24 * 3600 && now - 1_000 > 24 * 3600 - 1800)
        #expect(attempts > 40)
    }

    @Test func classify() {
        #expect([200, 204, 301, 400, 401, 404, 408, 429, 500, 503].map(Backoff.classify(status:))
                == [.sent, .sent, .permanent, .permanent, .permanent, .permanent, .retry, .retry, .retry, .retry])
    }
}
