import Testing
import Notify
import Store

/// `EscalationPlan`, the pure decision behind every escalation step: which
/// step comes next, when, and when the chain stops. Time is a number here.
@Suite struct EscalationPlanTests {
    /// Step 1 → channel 3, wait 10 min; step 2 → channels 5 and 6, wait 15 min.
    static let twoSteps = EscalationPlan(policyID: 2, steps: [
        .init(channelIDs: [3], delaySeconds: 600), .init(channelIDs: [5, 6], delaySeconds: 900),
    ], repeatCount: 1)
    static let open = EscalationPlan.Incident(kind: "down", open: true, acknowledged: false)

    func decide(_ plan: EscalationPlan? = twoSteps, round: Int64 = 0, step: Int64, nextAt: Int64?,
                incident: EscalationPlan.Incident? = open, now: Int64, quiet: Bool = false) -> EscalationPlan.Decision {
        EscalationPlan.decide(plan: plan, position: .init(round: round, step: step), nextAt: nextAt, incident: incident, now: now,
                              quiet: quiet)
    }

    @Test func walksTheStepsThenRepeatsThenRunsOut() {
        let plan = Self.twoSteps
        var position = EscalationPlan.Position(round: 0, step: 0)
        var nextAt: Int64? = 1000
        var sent: [(Int64, Int64, [Int64], Int64)] = []
        // Each step is taken the moment it is due.
        while let due = nextAt, case .send(let p, let channels, let next) = decide(plan, round: position.round, step: position.step,
                                                                                 nextAt: due, now: due) {
            sent.append((p.round, p.step, channels, due))
            position = p
            nextAt = next
        }
        #expect(sent.map { [$0.0, $0.1] } == [[0, 1], [0, 2], [1, 1], [1, 2]], "two rounds of two steps (repeat 1)")
        #expect(sent.map(\.2) == [[3], [5, 6], [3], [5, 6]])
        // Step 2 after step 1's delay; round 2 after the last step's delay.
        #expect(sent.map(\.3) == [1000, 1600, 2500, 3100])
        #expect(nextAt == nil, "ran out after the last step of the last round")
        #expect(decide(plan, round: 1, step: 2, nextAt: nil, now: 9999) == .stop(.ranOut))
    }

    @Test func noRepeatMeansOnePassAndOneStepPolicyEndsAtOnce() {
        let once = EscalationPlan(policyID: 1, steps: [.init(channelIDs: [3], delaySeconds: 60)], repeatCount: 0)
        #expect(decide(once, step: 0, nextAt: 50, now: 50) == .send(.init(round: 0, step: 1), channelIDs: [3], nextAt: nil))
        let thrice = EscalationPlan(policyID: 1, steps: [.init(channelIDs: [3], delaySeconds: 60)], repeatCount: 2)
        #expect(thrice.following(.init(round: 0, step: 1)) == .init(round: 1, step: 1))
        #expect(thrice.following(.init(round: 2, step: 1)) == nil)
        #expect(thrice.nextAt(after: .init(round: 1, step: 1), sentAt: 100) == 160)
        #expect(thrice.nextAt(after: .init(round: 2, step: 1), sentAt: 100) == nil)
    }

    @Test func waitsUntilDueAndCountsDelaysFromTheActualSend() {
        #expect(decide(step: 1, nextAt: 1600, now: 1599) == .wait(until: 1600))
        // Late (the hub was stopped): step 2 goes once, and step 3 counts from now.
        #expect(decide(step: 1, nextAt: 1600, now: 5000) == .send(.init(round: 0, step: 2), channelIDs: [5, 6], nextAt: 5900))
    }

    @Test func stopsForGoodOnAcknowledgeCloseAndWithoutItsPolicy() {
        let acked = EscalationPlan.Incident(kind: "down", open: true, acknowledged: true)
        let closed = EscalationPlan.Incident(kind: "down", open: false, acknowledged: false)
        let degraded = EscalationPlan.Incident(kind: "degraded", open: true, acknowledged: false)
        #expect(decide(step: 1, nextAt: 1600, incident: acked, now: 1600) == .stop(.acknowledged))
        #expect(decide(step: 1, nextAt: 1600, incident: acked, now: 1000) == .stop(.acknowledged), "even before it is due")
        #expect(decide(step: 1, nextAt: 1600, incident: closed, now: 1600) == .stop(.closed))
        #expect(decide(step: 1, nextAt: 1600, incident: nil, now: 1600) == .stop(.closed), "incident deleted")
        #expect(decide(step: 1, nextAt: 1600, incident: degraded, now: 1600) == .stop(.notDown), "only down incidents escalate")
        #expect(decide(nil, step: 1, nextAt: 1600, now: 1600) == .stop(.policyGone))
    }

    @Test func maintenanceHoldsADueStepWithoutSkippingIt() {
        #expect(decide(step: 0, nextAt: 1000, now: 1000, quiet: true) == .hold)
        #expect(decide(step: 1, nextAt: 1600, now: 1500, quiet: true) == .wait(until: 1600), "not due: nothing to hold")
        // When the window ends, the held step is the one that goes.
        #expect(decide(step: 1, nextAt: 1600, now: 4000) == .send(.init(round: 0, step: 2), channelIDs: [5, 6], nextAt: 4900))
    }

    @Test func aPolicyThatLostStepsEndsTheRound() {
        let shorter = EscalationPlan(policyID: 2, steps: [.init(channelIDs: [3], delaySeconds: 600)], repeatCount: 1)
        // The chain had sent step 2 of 2; the policy now has one step: the next is round 1, step 1.
        #expect(decide(shorter, step: 2, nextAt: 1000, now: 1000) == .send(.init(round: 1, step: 1), channelIDs: [3], nextAt: nil))
        #expect(decide(shorter, round: 1, step: 2, nextAt: 1000, now: 1000) == .stop(.ranOut))
    }

    @Test func theIncidentShowsTheChainOnlyWhileItRuns() {
        var state = EscalationStateRecord(incidentID: 7, policyID: 2, eventID: 1, step: 1, nextAt: 1600)
        let record = Self.open
        #expect(EscalationPlan.status(state, incident: record) == .init(policyID: 2, step: 1, nextAt: 1600))
        #expect(EscalationPlan.status(nil, incident: record) == nil, "no policy")
        state.step = 0
        #expect(EscalationPlan.status(state, incident: record)?.step == nil, "held before step 1")
        state.nextAt = nil
        #expect(EscalationPlan.status(state, incident: record) == nil, "ran out or stopped")
        state.nextAt = 1600
        #expect(EscalationPlan.status(state, incident: .init(kind: "down", open: true, acknowledged: true)) == nil)
        #expect(EscalationPlan.status(state, incident: .init(kind: "down", open: false, acknowledged: false)) == nil)
        #expect(EscalationPlan.status(state, incident: .init(kind: "degraded", open: true, acknowledged: false)) == nil)
    }
}
