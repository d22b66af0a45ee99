#if canImport(Glibc)
import Glibc
#endif
import Core
import Store
import Testing
import TestSupport

/// `Dependencies.lockGraph` (SPEC §12 "no cycles"): two hubs adding edges at
/// once must not both pass their cycle check against the same old graph.
@Suite struct DependencyLockTests {
    /// Hub 1 holds the lock with an uncommitted edge a→b; hub 2's transaction
    /// waits at the lock and then sees the edge, so its b→a is judged with it.
    /// Without the lock hub 2 would read the graph without a→b.
    @Test(arguments: TestEngine.all) func secondEditorSeesTheFirstOnesEdge(engine: TestEngine) throws {
        let dir = TempDir()
        let url = try engine.url(in: dir.path)
        let one = try Database(url: DatabaseURL(url), readers: 1)
        defer { one.close() }
        let two = engine == .postgres ? try Database(url: DatabaseURL(url), readers: 1) : one
        defer { if engine == .postgres { two.close() } }
        let (a, b) = try one.write { c in
            (try Monitors.insert(c, MonitorRecord(name: "a", type: "tcp", target: "x:1", interval: 60, timeout: 10, retries: 0), now: 1).id,
             try Monitors.insert(c, MonitorRecord(name: "b", type: "tcp", target: "x:1", interval: 60, timeout: 10, retries: 0), now: 1).id)
        }
        let inside = Counter(), release = Counter()
        let first = TestThread {
            do {
                try one.write { c throws in
                    try Dependencies.lockGraph(c)
                    try Dependencies.replace(c, monitorID: a, parents: [b])
                    inside.set()
                    _ = waitUntil(timeoutMillis: 10_000) { release.isSet }
                }
            } catch {
                Issue.record("first editor failed: \(error)")
            }
        }
        #expect(waitUntil { inside.isSet })
        let seen = Counter()
        let second = TestThread {
            do {
                let edges = try two.write { c throws in
                    try Dependencies.lockGraph(c)
                    return try Dependencies.all(c)
                }
                if edges.contains(where: { $0.child == a && $0.parent == b }) { seen.set() }
            } catch {
                Issue.record("second editor failed: \(error)")
            }
        }
        usleep(200_000)
        release.set()
        first.join()
        second.join()
        #expect(seen.isSet, "the second transaction judged the graph with the first one's edge")
    }
}
