import Core
import Store
import Synchronization

/// Sends the escalation steps that come due after the first (SPEC §10; the
/// first goes out with the alert, `Notifier+Escalation`). One thread,
/// `notify-escalation`, on every hub: a pass just after each whole second
/// (due times are whole seconds, so a step leaves within a few
/// milliseconds of its time plus the pass's own work).
///
/// Each due chain is one write transaction: lock the incident, claim the
/// chain's row while it is still due (`Escalations.claimDue`), decide
/// (`EscalationPlan.decide`, pure), then write the step's outbox rows, its
/// timeline entry and the advance (`Escalations.advance`, conditional on
/// the row's version) together. So a restart neither repeats a step (its
/// rows and the advance committed together) nor skips one (neither did),
/// and hubs sharing a database send each step once: the loser of the row
/// lock skips it, the loser of the version check writes nothing. The lock
/// order, incident then chain, is the one acknowledging and closing use.
public final class EscalationJob: Sendable {
    let database: Database
    let notifier: Notifier
    let clock: @Sendable () -> Int64
    /// Called after steps were queued (the delivery worker wakes up).
    let wake: @Sendable () -> Void
    /// Whether a monitor is quiet at a time (maintenance, mute): due steps wait then.
    let quiet: @Sendable (_ monitorID: Int64, _ at: Int64) -> Bool
    let wakeup = Semaphore()
    let stopped = Atomic<Bool>(false)
    let thread = Mutex<ThreadHandle?>(nil)

    /// Chains looked at per pass at most; more wait for the next second.
    static let perPass = 10_000

    public init(database: Database, notifier: Notifier, clock: @escaping @Sendable () -> Int64 = { Time.now() },
                wake: @escaping @Sendable () -> Void = {},
                quiet: @escaping @Sendable (_ monitorID: Int64, _ at: Int64) -> Bool = { _, _ in false }) {
        self.database = database
        self.notifier = notifier
        self.clock = clock
        self.wake = wake
        self.quiet = quiet
    }

    public func start() {
        stopped.store(false, ordering: .sequentiallyConsistent)
        let handle = startThread(name: "notify-escalation") { [self] in
            while !stopped.load(ordering: .sequentiallyConsistent) {
                // Just past the next whole second: a step due at T is taken at T + a few ms.
                let ms = Time.nowMillis()
                _ = wakeup.wait(timeoutNanos: UInt64(1000 - ms % 1000 + 2) * 1_000_000)
                if stopped.load(ordering: .sequentiallyConsistent) { break }
                do { try runOnce() } catch {
                    Log.shared.error("escalation pass failed", ["error": "\(error)"])
                }
            }
        }
        thread.withLock { $0 = handle }
    }

    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wakeup.post()
        let h = thread.withLock { t -> ThreadHandle? in defer { t = nil }; return t }
        h?.join()
    }

    /// One pass at the clock's time; returns the outbox rows queued.
    @discardableResult
    public func runOnce() throws -> Int {
        let now = clock()
        let due = try database.read { c in try Escalations.due(c, now: now, limit: Self.perPass) }
        var queued = 0
        for id in due {
            if stopped.load(ordering: .relaxed) { break }
            // One chain's failure (a database error) must not hold up the others.
            do { queued += try escalate(incidentID: id, now: now) } catch {
                Log.shared.error("escalation step failed", ["incident": "\(id)", "error": "\(error)"])
            }
        }
        if queued > 0 { wake() }
        return queued
    }

    /// Sends the incident's due step, if it still is due and still
    /// escalates; stops a chain that no longer does. Returns the rows queued.
    @discardableResult
    public func escalate(incidentID: Int64, now: Int64) throws -> Int {
        try database.write { c throws(StoreError) -> Int in
            guard let incident = try Incidents.findForUpdate(c, id: incidentID, skipLocked: true),
                  var state = try Escalations.claimDue(c, incidentID: incidentID, now: now) else { return 0 }
            let plan = try EscalationPolicies.find(c, id: state.policyID).map(EscalationPlan.init)
            let decision = EscalationPlan.decide(plan: plan, position: .init(round: state.round, step: state.step),
                                                 nextAt: state.nextAt, incident: .init(incident), now: now,
                                                 quiet: quiet(incident.monitorID, now))
            switch decision {
            case .wait, .hold:
                return 0
            case .stop(let reason):
                try Escalations.stop(c, incidentID: incidentID, now: now)
                if reason == .policyGone {
                    Log.shared.info("escalation stopped: its policy was deleted",
                                    ["incident": "\(incidentID)", "policy": "\(state.policyID)"])
                }
                return 0
            case .send(let position, let ids, let next):
                let channels = notifier.admitted(ids, kind: .monitorDown, monitorID: incident.monitorID)
                state.round = position.round
                state.step = position.step
                state.nextAt = next
                for ch in channels where !state.alerted.contains(ch.id) { state.alerted.append(ch.id) }
                // The claim proper: nobody moved the chain since it was read.
                guard try Escalations.advance(c, state, now: now) else { return 0 }
                try Incidents.addTimeline(c, incidentID: incidentID, at: now, event: Notifier.escalatedEvent,
                                          detail: Notifier.stepDetail(position.step, channels))
                return try notifier.queueStep(channels, incident: incident, eventID: state.eventID, at: now, on: c)
            }
        }
    }
}
