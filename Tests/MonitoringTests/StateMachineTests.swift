import Store
import Testing
@testable import Monitoring

/// 2027-01-15T08:00:00Z
private let t0: Int64 = 1_800_000_000

/// Drives the state machine the way the scheduler would: one state, a
/// policy, a maintenance flag, inputs in order.
private struct Monitor {
    var state: MonitorState
    var policy: MonitorPolicy
    var maintenance = false

    init(_ policy: MonitorPolicy = MonitorPolicy(), at: Int64 = t0 - 3600) {
        state = .new(at: at)
        self.policy = policy
    }

    @discardableResult
    mutating func feed(_ input: MonitorInput) -> [Effect] {
        let (next, effects) = StateMachine.apply(input, to: state, policy: policy, inMaintenance: maintenance)
        state = next
        return effects
    }

    @discardableResult
    mutating func up(_ at: Int64, _ location: String = "hub", ms: Int = 100, cert: Int64? = nil) -> [Effect] {
        feed(.result(CheckResult(at: at, location: location, outcome: .up, latencyMs: ms, statusCode: 200,
                                 certNotAfter: cert)))
    }

    @discardableResult
    mutating func down(_ at: Int64, _ location: String = "hub", code: Int? = 503, error: String? = nil,
                       cert: Int64? = nil) -> [Effect] {
        feed(.result(CheckResult(at: at, location: location, outcome: .down, latencyMs: 30, statusCode: code,
                                 error: error, certNotAfter: cert)))
    }
}

private func events(_ effects: [Effect]) -> [EventKind] {
    effects.compactMap { if case .event(let kind, _, _, _) = $0 { kind } else { nil } }
}

private func opened(_ effects: [Effect]) -> [IncidentKind] {
    effects.compactMap { if case .openIncident(let kind, _, _) = $0 { kind } else { nil } }
}

private func closed(_ effects: [Effect]) -> [IncidentKind] {
    effects.compactMap { if case .closeIncident(let kind, _) = $0 { kind } else { nil } }
}

@Suite("StateMachine")
struct StateMachineTests {
    @Test("pending → up: status change only, no event")
    func pendingToUp() {
        var m = Monitor()
        #expect(m.up(t0 + 60) == [.statusChanged(from: .pending, to: .up)])
        #expect(m.state.status == .up)
        #expect(m.state.statusSince == t0 + 60)
        #expect(m.state.locations["hub"] == LocationState(outcome: .up, lastAt: t0 + 60, lastLatencyMs: 100))
    }

    @Test("pending → down: the incident opens (dashboard) but no event is sent")
    func pendingToDown() {
        var m = Monitor()
        #expect(m.down(t0 + 60) == [
            .statusChanged(from: .pending, to: .down),
            .openIncident(kind: .down, cause: "HTTP 503", locations: ["hub"]),
            .timeline(kind: .down, event: "opened", detail: "HTTP 503"),
        ])
        #expect(m.state.openIncidents == [.down])
        // The recovery of that silently opened incident is announced (decision 5).
        let effects = m.up(t0 + 120)
        #expect(events(effects) == [.monitorUp])
        #expect(closed(effects) == [.down])
    }

    @Test("a pending monitor whose first failure is within retries stays pending")
    func pendingHoldsWithinRetries() {
        var m = Monitor(MonitorPolicy(retries: 1))
        #expect(m.down(t0 + 60).isEmpty)
        #expect(m.state.status == .pending)
        #expect(m.down(t0 + 120) == [
            .statusChanged(from: .pending, to: .down),
            .openIncident(kind: .down, cause: "HTTP 503", locations: ["hub"]),
            .timeline(kind: .down, event: "opened", detail: "HTTP 503"),
        ])
    }

    @Test("retries = failures tolerated: retries + 1 failures take it down", arguments: [0, 1, 2, 3])
    func retriesTolerated(retries: Int) {
        var m = Monitor(MonitorPolicy(retries: retries))
        m.up(t0)
        for i in 0..<retries {
            #expect(m.down(t0 + Int64(i + 1) * 60).isEmpty, "failure \(i + 1) of \(retries) tolerated")
            #expect(m.state.status == .up)
            #expect(m.state.locations["hub"]?.consecutiveFailures == i + 1)
        }
        let effects = m.down(t0 + Int64(retries + 1) * 60)
        #expect(m.state.status == .down)
        #expect(effects.first == .statusChanged(from: .up, to: .down))
        #expect(effects.last == .event(kind: .monitorDown, cause: "HTTP 503", locations: ["hub"], suppressed: false))
    }

    @Test("retries = 2: two failures then a success never change the status")
    func toleratedFailuresThenSuccess() {
        var m = Monitor(MonitorPolicy(retries: 2))
        m.up(t0)
        #expect(m.down(t0 + 60).isEmpty)
        #expect(m.down(t0 + 120).isEmpty)
        #expect(m.up(t0 + 180).isEmpty)
        #expect(m.state.locations["hub"]?.consecutiveFailures == 0)
        #expect(m.down(t0 + 240).isEmpty)
        #expect(m.state.status == .up)
    }

    @Test("flapping emits alternating events and opens/closes incidents in step")
    func flapping() {
        var m = Monitor()
        m.up(t0)
        let steps: [(CheckOutcome, MonitorStatus, EventKind, opened: [IncidentKind], closed: [IncidentKind])] = [
            (.down, .down, .monitorDown, [.down], []),
            (.up, .up, .monitorUp, [], [.down]),
            (.down, .down, .monitorDown, [.down], []),
            (.up, .up, .monitorUp, [], [.down]),
            (.down, .down, .monitorDown, [.down], []),
        ]
        for (i, step) in steps.enumerated() {
            let at = t0 + Int64(i + 1) * 60
            let effects = step.0 == .up ? m.up(at) : m.down(at)
            #expect(m.state.status == step.1)
            #expect(events(effects) == [step.2])
            #expect(opened(effects) == step.opened)
            #expect(closed(effects) == step.closed)
            #expect(m.state.openIncidents == Set(step.opened))
        }
    }

    @Test("up → degraded → down → up: incident kinds and events")
    func degradedDownUp() {
        var m = Monitor(MonitorPolicy(degradedAfterMs: 2000))
        m.up(t0)
        #expect(m.up(t0 + 60, ms: 2300) == [
            .statusChanged(from: .up, to: .degraded),
            .openIncident(kind: .degraded, cause: "slow: 2300 ms > 2000 ms", locations: ["hub"]),
            .timeline(kind: .degraded, event: "opened", detail: "slow: 2300 ms > 2000 ms"),
            .event(kind: .monitorDegraded, cause: "slow: 2300 ms > 2000 ms", locations: ["hub"], suppressed: false),
        ])
        #expect(m.down(t0 + 120, error: "connection refused") == [
            .statusChanged(from: .degraded, to: .down),
            .timeline(kind: .degraded, event: "closed", detail: "now down"),
            .closeIncident(kind: .degraded, reason: "now down"),
            .openIncident(kind: .down, cause: "connection refused", locations: ["hub"]),
            .timeline(kind: .down, event: "opened", detail: "connection refused"),
            .event(kind: .monitorDown, cause: "connection refused", locations: ["hub"], suppressed: false),
        ])
        #expect(m.up(t0 + 420, ms: 150) == [
            .statusChanged(from: .down, to: .up),
            .timeline(kind: .down, event: "closed", detail: "recovered"),
            .closeIncident(kind: .down, reason: "recovered"),
            .event(kind: .monitorUp, cause: "recovered after 5m", locations: ["hub"], suppressed: false),
        ])
        #expect(m.state.openIncidents.isEmpty)
    }

    @Test("down → degraded → up")
    func downDegradedUp() {
        var m = Monitor(MonitorPolicy(degradedAfterMs: 2000))
        m.up(t0)
        m.down(t0 + 60)
        let toDegraded = m.up(t0 + 120, ms: 2500)
        #expect(toDegraded == [
            .statusChanged(from: .down, to: .degraded),
            .timeline(kind: .down, event: "closed", detail: "now degraded"),
            .closeIncident(kind: .down, reason: "now degraded"),
            .openIncident(kind: .degraded, cause: "slow: 2500 ms > 2000 ms", locations: ["hub"]),
            .timeline(kind: .degraded, event: "opened", detail: "slow: 2500 ms > 2000 ms"),
            .event(kind: .monitorDegraded, cause: "slow: 2500 ms > 2000 ms", locations: ["hub"], suppressed: false),
        ])
        #expect(m.state.openIncidents == [.degraded])
        let toUp = m.up(t0 + 180, ms: 90)
        #expect(events(toUp) == [.monitorUp])
        #expect(closed(toUp) == [.degraded])
        #expect(m.state.status == .up)
        #expect(m.state.openIncidents.isEmpty)
    }

    @Test("slow checks obey retries too; a fast success resets the streak")
    func degradedNeedsConsecutiveSlow() {
        var m = Monitor(MonitorPolicy(retries: 1, degradedAfterMs: 1000))
        m.up(t0)
        #expect(m.up(t0 + 60, ms: 1500).isEmpty)
        #expect(m.up(t0 + 120, ms: 900).isEmpty)  // fast: streak reset
        #expect(m.up(t0 + 180, ms: 1500).isEmpty)
        #expect(m.up(t0 + 240, ms: 1001).first == .statusChanged(from: .up, to: .degraded))
        // Exactly the threshold is not slow.
        #expect(m.up(t0 + 300, ms: 1000).first == .statusChanged(from: .degraded, to: .up))
        // A tolerated failure while degraded keeps it degraded.
        m.up(t0 + 360, ms: 3000)
        m.up(t0 + 420, ms: 3000)
        #expect(m.state.status == .degraded)
        #expect(m.down(t0 + 480).isEmpty)
        #expect(m.state.status == .degraded)
    }

    @Test("maintenance: states and incidents change, every event is suppressed")
    func maintenanceSuppresses() {
        var m = Monitor(MonitorPolicy(degradedAfterMs: 2000, certExpiryDays: 14))
        m.up(t0)
        m.maintenance = true
        let down = m.down(t0 + 60, cert: t0 + 60 + 86400)
        #expect(m.state.status == .down)
        #expect(opened(down) == [.down, .expiry])
        #expect(down.contains(.event(kind: .monitorDown, cause: "HTTP 503", locations: ["hub"], suppressed: true)))
        #expect(down.contains(.event(kind: .expiry, cause: "certificate expires in 1 day (2027-01-16)",
                                     locations: ["hub"], suppressed: true)))
        let up = m.up(t0 + 120)
        #expect(up.contains(.event(kind: .monitorUp, cause: "recovered after 1m", locations: ["hub"], suppressed: true)))
        m.maintenance = false
        #expect(m.up(t0 + 180, ms: 2100).contains(
            .event(kind: .monitorDegraded, cause: "slow: 2100 ms > 2000 ms", locations: ["hub"], suppressed: false)))
    }

    @Test("pause closes every incident silently and ignores results until resume; resume → pending")
    func pauseAndResume() {
        var m = Monitor(MonitorPolicy(retries: 1, certExpiryDays: 14))
        m.up(t0)
        m.down(t0 + 60, cert: t0 + 86400 * 3)
        m.down(t0 + 120)
        #expect(m.state.openIncidents == [.down, .expiry])

        #expect(m.feed(.pause(at: t0 + 150)) == [
            .statusChanged(from: .down, to: .paused),
            .timeline(kind: .down, event: "closed", detail: "paused"),
            .closeIncident(kind: .down, reason: "paused"),
            .timeline(kind: .expiry, event: "closed", detail: "paused"),
            .closeIncident(kind: .expiry, reason: "paused"),
        ])
        #expect(m.state == MonitorState(status: .paused, statusSince: t0 + 150))
        #expect(m.feed(.pause(at: t0 + 160)).isEmpty)

        let paused = m.state
        #expect(m.down(t0 + 180).isEmpty)
        #expect(m.up(t0 + 240).isEmpty)
        #expect(m.state == paused)

        #expect(m.feed(.resume(at: t0 + 300)) == [.statusChanged(from: .paused, to: .pending)])
        #expect(m.state == MonitorState.new(at: t0 + 300))
        #expect(m.feed(.resume(at: t0 + 310)).isEmpty)
        // A result from before the resume (late upload) is ignored.
        #expect(m.down(t0 + 290).isEmpty)
        // Counters were reset: one failure is tolerated again, and the first result sends nothing.
        #expect(m.down(t0 + 360).isEmpty)
        #expect(m.state.status == .pending)
        #expect(m.up(t0 + 420) == [.statusChanged(from: .pending, to: .up)])
    }

    @Test("expiry: a certificate 5 days out with threshold 14 opens, renewal closes without event")
    func expiryOpenClose() {
        var m = Monitor(MonitorPolicy(certExpiryDays: 14))
        let notAfter = t0 + 5 * 86400 + 3600
        m.up(t0 - 60)
        let cause = "certificate expires in 5 days (2027-01-20)"
        #expect(m.up(t0, cert: notAfter) == [
            .openIncident(kind: .expiry, cause: cause, locations: ["hub"]),
            .timeline(kind: .expiry, event: "opened", detail: cause),
            .event(kind: .expiry, cause: cause, locations: ["hub"], suppressed: false),
        ])
        #expect(m.state.status == .up)
        #expect(m.state.openIncidents == [.expiry])
        // Same certificate again: nothing. A result without a certificate: nothing.
        #expect(m.up(t0 + 60, cert: notAfter).isEmpty)
        #expect(m.down(t0 + 120, error: "connection refused").contains(.statusChanged(from: .up, to: .down)))
        #expect(m.state.openIncidents == [.down, .expiry])
        m.up(t0 + 180)
        // A different certificate, still within the threshold.
        #expect(m.up(t0 + 240, cert: notAfter + 86400) == [
            .timeline(kind: .expiry, event: "certificate_changed",
                      detail: "certificate expires in 6 days (2027-01-21)"),
        ])
        // Renewed for 90 days.
        #expect(m.up(t0 + 300, cert: t0 + 90 * 86400) == [
            .timeline(kind: .expiry, event: "closed", detail: "certificate renewed"),
            .closeIncident(kind: .expiry, reason: "certificate renewed"),
        ])
        #expect(m.state.openIncidents.isEmpty)
        #expect(m.up(t0 + 360, cert: t0 + 90 * 86400).isEmpty)
    }

    @Test("expiry cause texts", arguments: [
        (Int64(20 * 86400), "certificate expires in 20 days (2027-02-04)"),
        (Int64(86400 + 5), "certificate expires in 1 day (2027-01-16)"),
        (Int64(3600), "certificate expires in less than a day (2027-01-15)"),
        (Int64(0), "certificate expired on 2027-01-15"),
        (Int64(-3 * 86400), "certificate expired on 2027-01-12"),
    ])
    func expiryText(offset: Int64, text: String) {
        #expect(StatusText.expiry(notAfter: t0 + offset, at: t0) == text)
    }

    @Test("expiry on the first result opens silently; disabling the check closes it")
    func expiryFirstResultAndDisabled() {
        var m = Monitor(MonitorPolicy(certExpiryDays: 14))
        let effects = m.up(t0, cert: t0 - 86400)
        #expect(opened(effects) == [.expiry])
        #expect(events(effects).isEmpty)
        m.policy.certExpiryDays = nil
        #expect(closed(m.up(t0 + 60)) == [.expiry])
    }

    @Test("expiry and down are open together and close independently")
    func expiryAndDown() {
        var m = Monitor(MonitorPolicy(certExpiryDays: 14))
        m.up(t0)
        let effects = m.down(t0 + 60, code: 502, cert: t0 + 2 * 86400)
        #expect(opened(effects) == [.down, .expiry])
        #expect(events(effects) == [.monitorDown, .expiry])
        #expect(m.state.openIncidents == [.down, .expiry])
        let up = m.up(t0 + 120)
        #expect(closed(up) == [.down])
        #expect(events(up) == [.monitorUp])
        #expect(m.state.openIncidents == [.expiry])
        let renewed = m.down(t0 + 180, code: 502, cert: t0 + 60 * 86400)
        #expect(opened(renewed) == [.down])
        #expect(closed(renewed) == [.expiry])
        #expect(m.state.openIncidents == [.down])
    }

    @Test("quorum: 3 locations, confirm 2")
    func quorum() {
        var m = Monitor(MonitorPolicy(confirmLocations: 2, locations: ["hub", "eu", "us"]))
        m.up(t0, "hub")
        m.up(t0, "eu")
        m.up(t0, "us")
        #expect(m.state.status == .up)
        // One location down keeps it up.
        #expect(m.down(t0 + 60, "eu").isEmpty)
        #expect(m.state.status == .up)
        // Two → down, listing both.
        #expect(m.down(t0 + 61, "us") == [
            .statusChanged(from: .up, to: .down),
            .openIncident(kind: .down, cause: "HTTP 503", locations: ["eu", "us"]),
            .timeline(kind: .down, event: "opened", detail: "HTTP 503"),
            .event(kind: .monitorDown, cause: "HTTP 503", locations: ["eu", "us"], suppressed: false),
        ])
        // The third joins with another cause: one timeline entry.
        #expect(m.down(t0 + 62, "hub", error: "connection refused") == [
            .timeline(kind: .down, event: "location_down", detail: "hub: connection refused"),
        ])
        // It leaves again: still down (eu, us).
        #expect(m.up(t0 + 120, "hub") == [.timeline(kind: .down, event: "location_up", detail: "hub")])
        #expect(m.state.status == .down)
        // One of the two recovers → up.
        let up = m.up(t0 + 121, "eu")
        #expect(up == [
            .statusChanged(from: .down, to: .up),
            .timeline(kind: .down, event: "closed", detail: "recovered"),
            .closeIncident(kind: .down, reason: "recovered"),
            .event(kind: .monitorUp, cause: "recovered after 1m", locations: ["eu", "us"], suppressed: false),
        ])
    }

    @Test("quorum is clamped to the online locations", arguments: [
        (1, ["hub"], 1), (3, ["hub"], 1), (3, ["hub", "eu"], 2), (0, ["hub", "eu"], 1), (2, ["hub", "eu", "us"], 2),
    ])
    func quorumClamp(confirm: Int, locations: [String], needed: Int) {
        var m = Monitor(MonitorPolicy(confirmLocations: confirm, locations: locations))
        for name in locations { m.up(t0, name) }
        for (i, name) in locations.enumerated() {
            m.down(t0 + 60, name)
            #expect(m.state.status == (i + 1 >= needed ? .down : .up))
        }
    }

    @Test("a location within retries holds the status while the quorum is uncertain")
    func quorumWithRetries() {
        var m = Monitor(MonitorPolicy(retries: 1, confirmLocations: 2, locations: ["a", "b"]))
        m.up(t0, "a")
        m.up(t0, "b")
        m.down(t0 + 60, "a")
        m.down(t0 + 120, "a")  // a sees it down; b untouched
        #expect(m.state.status == .up)
        #expect(m.down(t0 + 121, "b").isEmpty)  // b within retries
        #expect(m.down(t0 + 180, "b").first == .statusChanged(from: .up, to: .down))
    }

    @Test("quorum: a location down plus a slow one make it degraded, naming the failing location")
    func quorumDownCountsTowardsDegraded() {
        var m = Monitor(MonitorPolicy(degradedAfterMs: 1000, confirmLocations: 2, locations: ["a", "b", "c"]))
        for name in ["a", "b", "c"] { m.up(t0, name) }
        #expect(m.down(t0 + 60, "a").isEmpty)
        let cause = "slow: 1500 ms > 1000 ms; HTTP 503 (a)"
        #expect(m.up(t0 + 61, "b", ms: 1500) == [
            .statusChanged(from: .up, to: .degraded),
            .openIncident(kind: .degraded, cause: cause, locations: ["a", "b"]),
            .timeline(kind: .degraded, event: "opened", detail: cause),
            .event(kind: .monitorDegraded, cause: cause, locations: ["a", "b"], suppressed: false),
        ])
        // c fails too: two locations see it down → down.
        let down = m.down(t0 + 62, "c", error: "timeout")
        #expect(down.first == .statusChanged(from: .degraded, to: .down))
        #expect(down.contains(.openIncident(kind: .down, cause: "HTTP 503 (a); timeout (c)", locations: ["a", "c"])))
    }

    @Test("results from a location not in the policy are ignored")
    func unknownLocation() {
        var m = Monitor(MonitorPolicy(locations: ["hub", "eu"]))
        m.up(t0, "hub")
        let before = m.state
        #expect(m.down(t0 + 60, "offline-agent").isEmpty)
        #expect(m.up(t0 + 60, "").isEmpty)
        #expect(m.state == before)
        // An agent going offline: its history stays but no longer counts.
        m.down(t0 + 120, "eu")
        #expect(m.state.status == .down)
        m.policy.locations = ["hub"]
        #expect(m.down(t0 + 180, "eu").isEmpty)
        #expect(m.up(t0 + 180, "hub").first == .statusChanged(from: .down, to: .up))
    }

    @Test("an out-of-order result is ignored; the same second is accepted")
    func outOfOrder() {
        var m = Monitor()
        m.up(t0 + 120)
        let before = m.state
        #expect(m.down(t0 + 60).isEmpty)
        #expect(m.state == before)
        #expect(m.down(t0 + 120).first == .statusChanged(from: .up, to: .down))
    }

    @Test("cause text: error first, then HTTP status, then a fallback", arguments: [
        (CheckResult(at: 0, outcome: .down, statusCode: 503), "HTTP 503"),
        (CheckResult(at: 0, outcome: .down, error: "connection refused"), "connection refused"),
        (CheckResult(at: 0, outcome: .down, statusCode: 200, error: "keyword not found"), "keyword not found"),
        (CheckResult(at: 0, outcome: .down, statusCode: 404, error: ""), "HTTP 404"),
        (CheckResult(at: 0, outcome: .down), "check failed"),
    ])
    func causeText(result: CheckResult, text: String) {
        #expect(StatusText.failure(result) == text)
    }

    @Test("a changing cause adds one timeline entry; a repeated cause adds none")
    func causeChangeTimeline() {
        var m = Monitor()
        m.up(t0)
        m.down(t0 + 60, code: 503)
        #expect(m.down(t0 + 120, code: 503).isEmpty)
        #expect(m.down(t0 + 180, code: 502) == [.timeline(kind: .down, event: "still_down", detail: "HTTP 502")])
        #expect(m.down(t0 + 240, code: 502).isEmpty)
        #expect(m.down(t0 + 300, code: nil, error: "timeout after 10s") == [
            .timeline(kind: .down, event: "still_down", detail: "timeout after 10s"),
        ])
    }

    @Test("locations with different causes are named in the cause")
    func mixedCauses() {
        var m = Monitor(MonitorPolicy(confirmLocations: 3, locations: ["hub", "eu", "us"]))
        m.up(t0, "hub")
        m.down(t0 + 60, "hub", code: 503)
        m.down(t0 + 60, "eu", error: "connection refused")
        let effects = m.down(t0 + 60, "us", code: 503)
        let cause = "HTTP 503 (hub, us); connection refused (eu)"
        #expect(opened(effects) == [.down])
        #expect(effects.contains(.openIncident(kind: .down, cause: cause, locations: ["hub", "eu", "us"])))
        // eu now fails like the others: the cause simplifies.
        #expect(m.down(t0 + 120, "eu", code: 503) == [.timeline(kind: .down, event: "still_down", detail: "HTTP 503")])
    }

    @Test("degraded incident timeline notes locations, not every latency")
    func degradedTimeline() {
        var m = Monitor(MonitorPolicy(degradedAfterMs: 500, confirmLocations: 1, locations: ["a", "b"]))
        m.up(t0, "a")
        m.up(t0, "b")
        m.up(t0 + 60, "a", ms: 800)
        #expect(m.state.status == .degraded)
        #expect(m.up(t0 + 61, "b", ms: 900) == [.timeline(kind: .degraded, event: "location_degraded", detail: "b")])
        #expect(m.up(t0 + 120, "a", ms: 700).isEmpty)
        #expect(m.up(t0 + 121, "a", ms: 100) == [.timeline(kind: .degraded, event: "location_up", detail: "a")])
        #expect(m.up(t0 + 122, "b", ms: 100).first == .statusChanged(from: .degraded, to: .up))
    }

    @Test("durations", arguments: [
        (Int64(0), "0s"), (45, "45s"), (60, "1m"), (360, "6m"), (390, "6m 30s"), (3600, "1h"),
        (3900, "1h 5m"), (3601, "1h"), (86400, "1d"), (183600, "2d 3h"), (-5, "0s"),
    ])
    func durations(seconds: Int64, text: String) {
        #expect(StatusText.duration(seconds) == text)
    }
}
