import Store

/// An escalation policy as the engine walks it (SPEC §10), and the pure
/// decision of what a chain does at a given time. No clock, no database:
/// the job and the notifier hand in the stored state, the incident, the
/// time and whether the monitor is quiet, and write what comes out.
///
/// A chain is rounds of steps: round 0 is the first pass, then `repeat`
/// more. Step k (from 1) of a round goes out, then the chain waits that
/// step's delay before the next step; after the last step of a round it
/// waits the last step's delay and starts the next round at step 1. After
/// the last step of the last round the chain has run out. Delays count
/// from when a step was actually sent, so a step held back (maintenance) or
/// sent late (the hub was stopped) moves the ones after it too: a restart
/// never makes two steps arrive together.
public struct EscalationPlan: Sendable, Equatable {
    public struct Step: Sendable, Equatable {
        public var channelIDs: [Int64]
        public var delaySeconds: Int64
        public init(channelIDs: [Int64], delaySeconds: Int64) {
            self.channelIDs = channelIDs
            self.delaySeconds = delaySeconds
        }
    }

    public var policyID: Int64
    public var steps: [Step]
    public var repeatCount: Int64

    public init(policyID: Int64, steps: [Step], repeatCount: Int64) {
        self.policyID = policyID
        self.steps = steps
        self.repeatCount = repeatCount
    }

    public init(_ p: EscalationPolicyRecord) {
        self.init(policyID: p.id, steps: p.steps.map { Step(channelIDs: $0.channelIDs, delaySeconds: $0.delayMinutes * 60) },
                  repeatCount: p.repeatCount)
    }

    /// A place in the chain: round from 0, step from 1 (0 = before the first).
    public struct Position: Sendable, Equatable {
        public var round: Int64
        public var step: Int64
        public init(round: Int64, step: Int64) {
            self.round = round
            self.step = step
        }
    }

    /// The step after `p`, or nil when the chain has run out. A step number
    /// past the end (the policy lost steps since) ends its round.
    public func following(_ p: Position) -> Position? {
        if steps.isEmpty { return nil }
        if p.step < Int64(steps.count) { return Position(round: p.round, step: p.step + 1) }
        return p.round < repeatCount ? Position(round: p.round + 1, step: 1) : nil
    }

    /// When the step after `sent` is due, if there is one.
    public func nextAt(after sent: Position, sentAt: Int64) -> Int64? {
        guard following(sent) != nil, sent.step >= 1, sent.step <= Int64(steps.count) else { return nil }
        return sentAt + steps[Int(sent.step - 1)].delaySeconds
    }

    /// What a chain does now.
    public enum Decision: Sendable, Equatable {
        /// Nothing yet: the next step is due at this time.
        case wait(until: Int64)
        /// Due, but the monitor is quiet (maintenance): the step waits for
        /// the window to end; it is not skipped.
        case hold
        /// Send this step to these channels; the one after is due at
        /// `nextAt` (nil: this is the chain's last).
        case send(Position, channelIDs: [Int64], nextAt: Int64?)
        /// The chain ends for good.
        case stop(StopReason)
    }

    public enum StopReason: String, Sendable, Equatable {
        case closed, acknowledged, notDown = "not a down incident", policyGone = "policy deleted", ranOut = "ran out"
    }

    /// The incident facts the decision reads.
    public struct Incident: Sendable, Equatable {
        public var kind: String
        public var open: Bool
        public var acknowledged: Bool
        public init(kind: String, open: Bool, acknowledged: Bool) {
            self.kind = kind
            self.open = open
            self.acknowledged = acknowledged
        }

        public init(_ r: IncidentRecord) {
            self.init(kind: r.kind, open: r.status == "open", acknowledged: r.acknowledgedAt != nil)
        }
    }

    /// The decision for a chain at `position` (last step sent) whose next
    /// step is due at `nextAt`. `plan` nil: its policy no longer exists.
    public static func decide(plan: EscalationPlan?, position: Position, nextAt: Int64?, incident: Incident?, now: Int64,
                              quiet: Bool) -> Decision {
        guard let incident, incident.open else { return .stop(.closed) }
        if incident.acknowledged { return .stop(.acknowledged) }
        guard incident.kind == "down" else { return .stop(.notDown) }
        guard let plan else { return .stop(.policyGone) }
        guard let due = nextAt, let next = plan.following(position) else { return .stop(.ranOut) }
        if due > now { return .wait(until: due) }
        if quiet { return .hold }
        let channels = plan.steps[Int(next.step - 1)].channelIDs
        return .send(next, channelIDs: channels, nextAt: plan.nextAt(after: next, sentAt: now))
    }

    /// What the incident object shows (`escalation`): the chain while it
    /// runs, nil when there is none, it ran out, or the incident was
    /// acknowledged or closed. `step` nil: nothing sent yet (held back by
    /// maintenance since the incident opened).
    public struct Status: Sendable, Equatable {
        public var policyID: Int64
        public var step: Int64?
        public var nextAt: Int64
        public init(policyID: Int64, step: Int64?, nextAt: Int64) {
            self.policyID = policyID
            self.step = step
            self.nextAt = nextAt
        }
    }

    public static func status(_ s: EscalationStateRecord?, incident: Incident) -> Status? {
        guard let s, let next = s.nextAt, incident.open, !incident.acknowledged, incident.kind == "down" else { return nil }
        return Status(policyID: s.policyID, step: s.step > 0 ? s.step : nil, nextAt: next)
    }
}
