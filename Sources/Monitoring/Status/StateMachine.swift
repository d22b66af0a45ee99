import Store
/// The monitor status state machine: `(state, input, policy, inMaintenance) →
/// (state', effects)`. Pure — no clock (every input carries its time), no I/O,
/// no SQL, no threads; the caller persists the new state and carries out the
/// effects (incident rows, timeline rows, outbox rows).
///
/// Decisions (SPEC §5 Monitors/Incidents/Maintenance, §6 Events):
///
/// 1. **Per location.** A failure increments `consecutiveFailures`, a success
///    resets it. A successful check strictly slower than `degradedAfterMs`
///    increments `consecutiveSlow`, a fast success (or one without a latency)
///    resets it; a failure leaves the slow streak alone. A location *sees it
///    down* when `consecutiveFailures > retries` and *sees it degraded* when
///    `consecutiveSlow > retries` (the same tolerance, against flapping). A
///    location that sees it down also counts as seeing it degraded ("degraded
///    or worse").
/// 2. **Quorum** `q = clamp(confirmLocations, 1…policy.locations.count)`, over
///    the policy's locations only (its online locations now). Locations that
///    never reported count as up: down must be confirmed, up is the default.
///    A location whose latest result predates `policy.countedSince` (from
///    before an agent went offline) counts as never reported, and its next
///    result starts its counters afresh.
/// 3. **Status** (`prev` = status before the input):
///    - `down` when ≥ q locations see it down;
///    - otherwise, when `prev` is not `down` and (locations seeing it down +
///      locations with failures still within `retries`) ≥ q, the status stays
///      `prev` — we are waiting for confirmation. This is also why a pending
///      monitor whose first result is a tolerated failure stays `pending`;
///    - otherwise `degraded` when ≥ q locations see it degraded or worse;
///    - otherwise `up`. Recovery is immediate: as soon as the down (or
///      degraded) quorum is no longer met, e.g. at the first success of a
///      single-location monitor. (A slow streak within `retries` never holds
///      a status: the check succeeded, so the monitor is up.)
/// 4. **Incidents** follow the status: `down` ⇔ an open `down` incident,
///    `degraded` ⇔ an open `degraded` incident. On a transition, incidents no
///    longer wanted close first (reason "recovered" when the monitor is up,
///    else "now down" / "now degraded"), then the wanted one opens. Incidents
///    open even on the first transition out of `pending`, so the dashboard is
///    right, but no event is sent for it.
/// 5. **Events**: nothing while the status before the input is `pending` (SPEC
///    §6: a monitor's first result after pending sends nothing — this includes
///    an `expiry` found by that result; reminders still cover the open
///    incident). Otherwise → down: `monitor_down`; → degraded:
///    `monitor_degraded`; down/degraded → up: `monitor_up` (cause "recovered
///    after 5m"). A `down` that opened silently out of `pending` still gets its
///    `monitor_up`, because its incident was visible and reminded about.
/// 6. **Maintenance**: state and incidents change as usual; every `event`
///    effect carries `suppressed: true` (record it, send nothing).
/// 7. **Causes**: a failed check's cause is its error, else `HTTP <code>`, else
///    "check failed". A `down` incident's cause is the distinct causes of the
///    locations seeing it down, in policy order ("HTTP 503"; when they differ,
///    "HTTP 503 (hub); connection refused (eu-west)"); its locations are those
///    locations. A `degraded` cause is "slow: 2300 ms > 2000 ms" with the largest
///    latest latency among the slow locations, followed by the failing ones
///    when some locations see it down without making the down quorum
///    ("slow: 2300 ms > 2000 ms; HTTP 503 (eu)").
/// 8. **Timeline** (only on change, never per check): every `openIncident` is
///    followed by `timeline(opened, cause)` and every `closeIncident` preceded
///    by `timeline(closed, reason)`, so timeline effects are the complete log.
///    While a `down` incident stays open: the reporting location starting /
///    stopping to see it down adds `location_down` ("eu-west: HTTP 503") /
///    `location_up` ("eu-west"); otherwise a changed cause adds `still_down`
///    (new cause). While a `degraded` incident stays open: `location_degraded`
///    / `location_up` (the slow cause changes every check, so it is not logged).
/// 9. **Expiry**, independent of up/down: on an accepted result carrying
///    `certNotAfter` with `certExpiryDays` set, `notAfter - at < days·86400`
///    opens an `expiry` incident (+ `expiry` event) unless one is open (a
///    different certificate still within the threshold adds
///    `certificate_changed`); a certificate beyond the threshold closes it
///    ("certificate renewed", no event). Results without a certificate (a
///    refused connection) change nothing. If `certExpiryDays` became nil, the
///    next accepted result closes an open expiry incident ("certificate
///    expiry not tracked").
/// 10. **pause**: `paused`, every open incident closes ("paused"), no events,
///     location history and the remembered certificate are dropped; results
///     are then ignored. **resume**: back to `pending` with empty history, no
///     events. Pausing a paused monitor or resuming one that is not paused
///     does nothing.
/// 11. **Ignored results** (no state change, no effects): while paused; from a
///     location not in `policy.locations`; older than that location's `lastAt`
///     (out-of-order agent uploads; an equal timestamp is accepted, as a
///     check-now can land in the same second as a scheduled check); and,
///     while `pending`, older than `statusSince` (a result from before a
///     resume).
/// 12. **Effect order** within one apply: `statusChanged`; closes; opens;
///     timeline entries on incidents that stay open; the status event; then
///     the expiry effects (close, or open/timeline/event).
public enum StateMachine {
    public static func apply(_ input: MonitorInput, to state: MonitorState, policy: MonitorPolicy,
                             inMaintenance: Bool) -> (MonitorState, [Effect]) {
        switch input {
        case .pause(let at): return pause(state, at: at)
        case .resume(let at): return resume(state, at: at)
        case .result(let result): return apply(result, to: state, policy: policy, inMaintenance: inMaintenance)
        }
    }

    // MARK: pause / resume (rule 10)

    private static func pause(_ state: MonitorState, at: Int64) -> (MonitorState, [Effect]) {
        guard state.status != .paused else { return (state, []) }
        var effects: [Effect] = [.statusChanged(from: state.status, to: .paused)]
        for kind in IncidentKind.allCases where state.openIncidents.contains(kind) {
            effects += close(kind, reason: "paused")
        }
        return (MonitorState(status: .paused, statusSince: at), effects)
    }

    private static func resume(_ state: MonitorState, at: Int64) -> (MonitorState, [Effect]) {
        guard state.status == .paused else { return (state, []) }
        return (.new(at: at), [.statusChanged(from: .paused, to: .pending)])
    }

    // MARK: results

    private static func apply(_ r: CheckResult, to state: MonitorState, policy: MonitorPolicy,
                              inMaintenance: Bool) -> (MonitorState, [Effect]) {
        // Rule 11: ignored results.
        let names = unique(policy.locations)
        guard state.status != .paused, names.contains(r.location) else { return (state, []) }
        var before = state.locations[r.location] ?? LocationState()
        if Tally.isStale(before, since: policy.countedSince[r.location]) {
            before = LocationState()  // back online: start this location afresh
        }
        if let last = before.lastAt, r.at < last { return (state, []) }
        if state.status == .pending, r.at < state.statusSince { return (state, []) }

        let retries = max(0, policy.retries)
        var next = state
        next.locations[r.location] = updated(before, with: r, policy: policy)

        let old = Tally(state.locations, names: names, retries: retries, countedSince: policy.countedSince)
        let new = Tally(next.locations, names: names, retries: retries, countedSince: policy.countedSince)
        let prev = state.status
        let status = derive(prev: prev, tally: new, quorum: max(1, min(policy.confirmLocations, names.count)))
        let announce = prev != .pending  // rule 5
        var effects: [Effect] = []
        func event(_ kind: EventKind, _ cause: String, _ locations: [String]) {
            if announce { effects.append(.event(kind: kind, cause: cause, locations: locations, suppressed: inMaintenance)) }
        }

        if status != prev {
            next.status = status
            next.statusSince = r.at
            effects.append(.statusChanged(from: prev, to: status))
            // Rule 4: close what is no longer wanted, then open what is.
            let wanted: IncidentKind? = status == .down ? .down : status == .degraded ? .degraded : nil
            for kind in [IncidentKind.down, .degraded] where kind != wanted && next.openIncidents.contains(kind) {
                effects += close(kind, reason: status == .up ? "recovered" : "now \(status.rawValue)")
                next.openIncidents.remove(kind)
            }
            if let kind = wanted, !next.openIncidents.contains(kind) {
                let (cause, locations) = kind == .down ? new.downCause() : new.degradedCause(policy)
                effects += open(kind, cause: cause, locations: locations)
                next.openIncidents.insert(kind)
            }
            // Rule 5: the status event.
            switch status {
            case .down:
                let (cause, locations) = new.downCause()
                event(.monitorDown, cause, locations)
            case .degraded:
                let (cause, locations) = new.degradedCause(policy)
                event(.monitorDegraded, cause, locations)
            case .up where prev == .down || prev == .degraded:
                let recovered = prev == .down ? old.down : old.degradedOrWorse
                event(.monitorUp, "recovered after \(StatusText.duration(r.at - state.statusSince))",
                      recovered.isEmpty ? [r.location] : recovered)
            default:
                break
            }
        } else {
            // Rule 8: changes on an incident that stays open.
            let name = r.location
            if status == .down, next.openIncidents.contains(.down) {
                let was = old.down.contains(name), now = new.down.contains(name)
                if !was && now {
                    effects.append(.timeline(kind: .down, event: TimelineEvent.locationDown,
                                             detail: "\(name): \(next.locations[name]?.lastError ?? "check failed")"))
                } else if was && !now {
                    effects.append(.timeline(kind: .down, event: TimelineEvent.locationUp, detail: name))
                } else if old.downCause().cause != new.downCause().cause {
                    effects.append(.timeline(kind: .down, event: TimelineEvent.stillDown, detail: new.downCause().cause))
                }
            } else if status == .degraded, next.openIncidents.contains(.degraded) {
                let was = old.degradedOrWorse.contains(name), now = new.degradedOrWorse.contains(name)
                if !was && now {
                    effects.append(.timeline(kind: .degraded, event: TimelineEvent.locationDegraded, detail: name))
                } else if was && !now {
                    effects.append(.timeline(kind: .degraded, event: TimelineEvent.locationUp, detail: name))
                }
            }
        }

        // Rule 9: certificate expiry.
        if let days = policy.certExpiryDays, let notAfter = r.certNotAfter {
            let cause = StatusText.expiry(notAfter: notAfter, at: r.at)
            if notAfter - r.at < Int64(days) * 86400 {
                if !next.openIncidents.contains(.expiry) {
                    effects += open(.expiry, cause: cause, locations: [r.location])
                    next.openIncidents.insert(.expiry)
                    event(.expiry, cause, [r.location])
                } else if let seen = state.certNotAfter, seen != notAfter {
                    effects.append(.timeline(kind: .expiry, event: TimelineEvent.certificateChanged, detail: cause))
                }
            } else if next.openIncidents.contains(.expiry) {
                effects += close(.expiry, reason: "certificate renewed")
                next.openIncidents.remove(.expiry)
            }
        } else if policy.certExpiryDays == nil, next.openIncidents.contains(.expiry) {
            effects += close(.expiry, reason: "certificate expiry not tracked")
            next.openIncidents.remove(.expiry)
        }
        if let notAfter = r.certNotAfter { next.certNotAfter = notAfter }

        return (next, effects)
    }

    /// Rule 1: one location's counters after one result.
    private static func updated(_ s: LocationState, with r: CheckResult, policy: MonitorPolicy) -> LocationState {
        var s = s
        s.outcome = r.outcome
        s.lastAt = r.at
        switch r.outcome {
        case .down:
            s.consecutiveFailures += 1
            s.lastError = StatusText.failure(r)
        case .up:
            s.consecutiveFailures = 0
            s.lastError = nil
            s.lastLatencyMs = r.latencyMs
            if let limit = policy.degradedAfterMs, let ms = r.latencyMs, ms > limit {
                s.consecutiveSlow += 1
            } else {
                s.consecutiveSlow = 0
            }
        }
        return s
    }

    /// Rule 3.
    private static func derive(prev: MonitorStatus, tally: Tally, quorum q: Int) -> MonitorStatus {
        if tally.down.count >= q { return .down }
        if prev != .down && tally.down.count + tally.failingWithinRetries >= q { return prev }
        if tally.degradedOrWorse.count >= q { return .degraded }
        return .up
    }

    private static func open(_ kind: IncidentKind, cause: String, locations: [String]) -> [Effect] {
        [.openIncident(kind: kind, cause: cause, locations: locations),
         .timeline(kind: kind, event: TimelineEvent.opened, detail: cause)]
    }

    private static func close(_ kind: IncidentKind, reason: String) -> [Effect] {
        [.timeline(kind: kind, event: TimelineEvent.closed, detail: reason),
         .closeIncident(kind: kind, reason: reason)]
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}

/// What the policy's locations see, in policy order (rules 1–2, 7).
private struct Tally {
    var down: [String] = []
    var failingWithinRetries = 0
    var degradedOrWorse: [String] = []
    /// (name, state) of every policy location that reported, in policy order.
    var states: [(String, LocationState)] = []
    let retries: Int

    init(_ locations: [String: LocationState], names: [String], retries: Int, countedSince: [String: Int64] = [:]) {
        self.retries = retries
        for name in names {
            guard let s = locations[name], !Self.isStale(s, since: countedSince[name]) else { continue }
            states.append((name, s))
            let seesDown = s.consecutiveFailures > retries
            if seesDown { down.append(name) } else if s.consecutiveFailures > 0 { failingWithinRetries += 1 }
            if seesDown || s.consecutiveSlow > retries { degradedOrWorse.append(name) }
        }
    }

    /// Rule 2: a view from before the location came back online.
    static func isStale(_ s: LocationState, since: Int64?) -> Bool {
        guard let since, let last = s.lastAt else { return false }
        return last < since
    }

    /// Rule 7: distinct causes of the locations seeing it down; each followed
    /// by its locations when they differ (or when `naming`).
    func downCause(naming: Bool = false) -> (cause: String, locations: [String]) {
        var causes: [(text: String, locations: [String])] = []
        for (name, s) in states where down.contains(name) {
            let text = s.lastError ?? "check failed"
            if let i = causes.firstIndex(where: { $0.text == text }) {
                causes[i].locations.append(name)
            } else {
                causes.append((text, [name]))
            }
        }
        if causes.count <= 1 && !naming { return (causes.first?.text ?? "check failed", down) }
        let text = causes.map { "\($0.text) (\($0.locations.joined(separator: ", ")))" }.joined(separator: "; ")
        return (text, down)
    }

    /// Rule 7: the slowest latest latency among the slow locations.
    func degradedCause(_ policy: MonitorPolicy) -> (cause: String, locations: [String]) {
        let slowest = states
            .filter { $0.1.consecutiveSlow > retries && $0.1.consecutiveFailures <= retries }
            .compactMap { $0.1.lastLatencyMs }
            .max()
        var cause = "slow"
        if let ms = slowest, let limit = policy.degradedAfterMs { cause = "slow: \(ms) ms > \(limit) ms" }
        // Locations that see it down but are too few for `down` still count
        // towards `degraded`; name them.
        if !down.isEmpty {
            cause += "; \(downCause(naming: true).cause)"
        }
        return (cause, degradedOrWorse)
    }
}
