import Core
import Monitoring
import Testing

/// The pure side of dependencies (SPEC §12): when a held alert is decided,
/// and which `depends_on` lists are refused.
@Suite struct DependencyGateTests {
    typealias V = DependencyGate.View
    let since: Int64 = 1_000
    var until: Int64 { DependencyGate.until(start: since, interval: 60) }

    @Test func holdLastsTwoIntervals() {
        #expect(DependencyGate.until(start: 1_000, interval: 60) == 1_120)
    }

    @Test func waitsUntilEveryParentHasANewerResult() {
        let child = V(id: 2, status: .down, newest: since)
        let stale = V(id: 1, status: .up, newest: since - 1)
        #expect(DependencyGate.decide(since: since, until: until, child: child, parents: [stale], now: since + 5) == .wait)
        let fresh = V(id: 3, status: .up, newest: since)
        #expect(DependencyGate.decide(since: since, until: until, child: child, parents: [fresh, stale], now: since + 5) == .wait)
        let never = V(id: 4, status: .pending, newest: nil)
        #expect(DependencyGate.decide(since: since, until: until, child: child, parents: [never], now: since + 5) == .wait)
    }

    @Test func suppressedByTheFirstDownParent() {
        let child = V(id: 9, status: .down, newest: since)
        let parents = [V(id: 5, status: .down, newest: since + 2), V(id: 3, status: .down, newest: since), V(id: 4, status: .up, newest: since)]
        #expect(DependencyGate.decide(since: since, until: until, child: child, parents: parents, now: since + 2) == .suppress(by: 3))
    }

    @Test func aDownParentSuppressesEvenWithAnOlderResult() {
        // The parent's failing check was recorded just before the child's.
        let child = V(id: 2, status: .down, newest: since)
        let parents = [V(id: 1, status: .down, newest: since - 1), V(id: 3, status: .up, newest: nil)]
        #expect(DependencyGate.decide(since: since, until: until, child: child, parents: parents, now: since) == .suppress(by: 1))
    }

    @Test func releasedWhenEveryParentReportedAndNoneIsDown() {
        let child = V(id: 9, status: .down, newest: since)
        let parents = [V(id: 1, status: .up, newest: since), V(id: 2, status: .degraded, newest: since + 1),
                       V(id: 3, status: .paused, newest: nil)]
        #expect(DependencyGate.decide(since: since, until: until, child: child, parents: parents, now: since + 1) == .release)
    }

    @Test func releasedAfterTheParentRecoversOnceTheChildReportsAgain() {
        // Re-hold: `since` is the parent's recovery; the child's own next
        // result (still down) decides.
        let parent = V(id: 1, status: .up, newest: since)
        let before = V(id: 2, status: .down, newest: since - 30)
        #expect(DependencyGate.decide(since: since, until: until, child: before, parents: [parent], now: since) == .wait)
        let after = V(id: 2, status: .down, newest: since + 30)
        #expect(DependencyGate.decide(since: since, until: until, child: after, parents: [parent], now: since + 30) == .release)
    }

    @Test func timeoutDecidesWithWhatIsKnown() {
        let child = V(id: 2, status: .down, newest: since)
        let silentUp = V(id: 1, status: .up, newest: since - 100)
        #expect(DependencyGate.decide(since: since, until: until, child: child, parents: [silentUp], now: until - 1) == .wait)
        #expect(DependencyGate.decide(since: since, until: until, child: child, parents: [silentUp], now: until) == .release)
        let silentDown = V(id: 1, status: .down, newest: since - 100)
        #expect(DependencyGate.decide(since: since, until: until, child: child, parents: [silentDown], now: until) == .suppress(by: 1))
    }

    @Test func graphRefusesSelfUnknownAndCycles() throws {
        let edges: [(child: Int64, parent: Int64)] = [(2, 1), (3, 2)]
        let all: Set<Int64> = [1, 2, 3, 4]
        try DependencyGraph.check(monitorID: 4, parents: [3, 1], existing: all, edges: edges)
        try DependencyGraph.check(monitorID: nil, parents: [1], existing: all, edges: edges)
        // Changing 2's own parents drops its old edge first.
        try DependencyGraph.check(monitorID: 2, parents: [4], existing: all, edges: edges)
        #expect(throws: JSONFieldError.self) { try DependencyGraph.check(monitorID: 1, parents: [3], existing: all, edges: edges) }
        #expect(throws: JSONFieldError.self) { try DependencyGraph.check(monitorID: 1, parents: [2], existing: all, edges: edges) }
        #expect(throws: JSONFieldError.self) { try DependencyGraph.check(monitorID: 4, parents: [4], existing: all, edges: edges) }
        #expect(throws: JSONFieldError.self) { try DependencyGraph.check(monitorID: 4, parents: [7], existing: all, edges: edges) }
        do {
            try DependencyGraph.check(monitorID: 1, parents: [3], existing: all, edges: edges)
        } catch {
            #expect(error.field == "depends_on")
        }
    }

    @Test func parseLimitsAndDeduplicates() throws {
        #expect(try DependencyGraph.parse(nil) == nil)
        #expect(try DependencyGraph.parse(.array([.int(3), .int(1), .int(3)])) == [3, 1])
        #expect(throws: JSONFieldError.self) { try DependencyGraph.parse(.array([.string("x")])) }
        #expect(throws: JSONFieldError.self) { try DependencyGraph.parse(.array([.int(0)])) }
        #expect(throws: JSONFieldError.self) { try DependencyGraph.parse(.array((1...21).map { .int(Int64($0)) })) }
        #expect(try DependencyGraph.parse(.array((1...20).map { .int(Int64($0)) }))?.count == 20)
    }
}
