import Testing
import Core
import Store
import TestSupport

/// `escalation_policies` and `incident_escalations` on both engines, above
/// all the claim of a due step: of two claimers (two hubs, or a hub and its
/// own restart) exactly one advances the chain.
@Suite struct EscalationStoreTests {
    /// A database with a down incident on a monitor that names a policy,
    /// and the incident's chain at step 1 with step 2 due at 160.
    final class Fixture {
        let dir = TempDir()
        let url: String
        let db: Database
        let incident: Int64
        let policy: Int64

        init(_ engine: TestEngine) throws {
            url = try engine.url(in: dir.path)
            db = try Database(url: DatabaseURL(url), readers: 2)
            (incident, policy) = try db.write { c throws in
                let ch = try Channels.insert(c, ChannelRecord(name: "ops", type: "webhook", enabled: true, events: [], monitorIDs: [],
                                                              reminderMinutes: 0, config: JSONObject([("url", "http://127.0.0.1:9/")])),
                                             now: 1)
                let p = try EscalationPolicies.insert(c, EscalationPolicyRecord(name: "Ops", repeatCount: 1, steps: [
                    EscalationStepRecord(channelIDs: [ch.id], delayMinutes: 1), EscalationStepRecord(channelIDs: [ch.id], delayMinutes: 2),
                ]), now: 1)
                var m = MonitorRecord(name: "API", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10, retries: 0)
                m.escalationPolicyID = p.id
                let monitor = try Monitors.insert(c, m, now: 1)
                let i = try Incidents.open(c, monitorID: monitor.id, kind: "down", cause: "refused", locations: ["hub"], at: 100)
                #expect(try Escalations.start(c, EscalationStateRecord(incidentID: i.id, policyID: p.id, eventID: nil, step: 1,
                                                                        nextAt: 160, alerted: [ch.id]), now: 100))
                return (i.id, p.id)
            }
        }

        deinit { db.close() }
    }

    @Test(arguments: TestEngine.all) func policiesRoundTripAndMonitorsUsingThem(engine: TestEngine) throws {
        let f = try Fixture(engine)
        try f.db.write { c throws in
            let p = try #require(try EscalationPolicies.find(c, id: f.policy))
            #expect(p.name == "Ops" && p.repeatCount == 1 && p.steps.map(\.delayMinutes) == [1, 2])
            #expect(try EscalationPolicies.monitorsUsing(c, id: f.policy).count == 1)
            #expect(try EscalationPolicies.naming(c, channelID: p.steps[0].channelIDs[0]).map(\.id) == [f.policy])
            var changed = p
            changed.steps = [EscalationStepRecord(channelIDs: [p.steps[0].channelIDs[0], 99], delayMinutes: 1440)]
            changed.name = "Ops ✓"
            let out = try #require(try EscalationPolicies.update(c, changed, now: 5))
            #expect(out.steps == changed.steps && out.name == "Ops ✓" && out.updatedAt == 5 && out.createdAt == 1)
            #expect(try EscalationPolicies.list(c).map(\.id) == [f.policy])
        }
        // The foreign key refuses deleting a policy a monitor names (the API checks first and answers 409).
        #expect(throws: StoreError.self) { try f.db.write { c in try EscalationPolicies.delete(c, id: f.policy) } }
    }

    @Test(arguments: TestEngine.all) func aChainStartsOnceAndIsDueAtItsTime(engine: TestEngine) throws {
        let f = try Fixture(engine)
        try f.db.write { c throws in
            #expect(try !Escalations.start(c, EscalationStateRecord(incidentID: f.incident, policyID: f.policy, eventID: nil,
                                                                     nextAt: 100), now: 100), "one chain per incident")
            #expect(try Escalations.due(c, now: 159, limit: 10).isEmpty)
            #expect(try Escalations.due(c, now: 160, limit: 10) == [f.incident])
            #expect(try Escalations.nextDue(c) == 160)
            #expect(try Escalations.claimDue(c, incidentID: f.incident, now: 159) == nil, "not due yet: no claim")
            #expect(try Escalations.activeCount(c) == 1)
        }
    }

    /// Two claimers read the same due row (same version); the first advance
    /// wins, the second changes nothing and, reading again, finds nothing due.
    @Test(arguments: TestEngine.all) func ofTwoClaimersOneWins(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let other = try Database(url: DatabaseURL(f.url), readers: 1)
        defer { other.close() }
        let seenA = try #require(try f.db.read { c in try Escalations.find(c, incidentID: f.incident) })
        let seenB = try #require(try other.read { c in try Escalations.find(c, incidentID: f.incident) })
        #expect(seenA.version == seenB.version)
        var a = seenA
        a.step = 2
        a.nextAt = 280
        var b = seenB
        b.step = 2
        b.nextAt = 290
        let wonA = try f.db.write { c in try Escalations.advance(c, a, now: 160) }
        let wonB = try other.write { c -> Bool in
            #expect(try Escalations.claimDue(c, incidentID: f.incident, now: 160) == nil, "no longer due once A advanced it")
            return try Escalations.advance(c, b, now: 160)
        }
        #expect(wonA && !wonB)
        let now = try #require(try other.read { c in try Escalations.find(c, incidentID: f.incident) })
        #expect(now.step == 2 && now.nextAt == 280 && now.version == seenA.version + 1, "A's advance, once")
    }

    /// PostgreSQL, two hubs at the same moment: while one holds the due row
    /// (its step's transaction is open), the other's claim skips it instead
    /// of waiting, and finds it no longer due after the first commits.
    @Test(.enabled(if: TestEngine.all.contains(.postgres), "needs the test PostgreSQL server"))
    func aClaimHeldByOneHubIsSkippedByTheOther() throws {
        let f = try Fixture(.postgres)
        let other = try Database(url: DatabaseURL(f.url), readers: 1)
        defer { other.close() }
        try f.db.write { c throws in
            var mine = try #require(try Escalations.claimDue(c, incidentID: f.incident, now: 160))
            let skipped = try other.write { c2 in try Escalations.claimDue(c2, incidentID: f.incident, now: 160) }
            #expect(skipped == nil, "the locked row is skipped, not waited for")
            // The incident's lock is skipped the same way (the job takes it first).
            let incident = try other.write { c2 in try Incidents.findForUpdate(c2, id: f.incident, skipLocked: true) }
            #expect(incident != nil, "nobody holds the incident yet")
            mine.step = 2
            mine.nextAt = 280
            #expect(try Escalations.advance(c, mine, now: 160))
        }
        let after = try other.write { c in try Escalations.claimDue(c, incidentID: f.incident, now: 160) }
        #expect(after == nil, "advanced: nothing due at 160 any more")
    }

    @Test(arguments: TestEngine.all) func stoppedChainsKeepTheirAlertedChannels(engine: TestEngine) throws {
        let f = try Fixture(engine)
        try f.db.write { c throws in
            #expect(try Escalations.stop(c, incidentID: f.incident, now: 120))
            #expect(try !Escalations.stop(c, incidentID: f.incident, now: 121), "already stopped")
            let s = try #require(try Escalations.find(c, incidentID: f.incident))
            #expect(s.nextAt == nil && s.alerted.count == 1)
            #expect(try Escalations.due(c, now: 10_000, limit: 10).isEmpty)
            #expect(try Escalations.nextDue(c) == nil)
            #expect(try Escalations.find(c, incidentIDs: [f.incident, 999]).keys.sorted() == [f.incident])
        }
    }
}
