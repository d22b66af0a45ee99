@testable import API
import Core
import HTTP
import Testing

/// `StatusPageCache` on a stepped clock: fresh copies are served, stale
/// ones rebuilt, one build per key at a time, failures never kept.
@Suite struct StatusPageCacheTests {
    final class SteppedClock: @unchecked Sendable {
        private let lock = Condition()
        private var nanos: UInt64 = 1_000_000_000
        func now() -> UInt64 { lock.lock(); defer { lock.unlock() }; return nanos }
        func advance(seconds: Double) { lock.lock(); nanos += UInt64(seconds * 1e9); lock.unlock() }
    }

    struct Broken: Error {}

    static func page(_ text: String) -> HTTPResponse { .text(200, text) }
    static func body(_ r: HTTPResponse) -> String { String(decoding: r.body, as: UTF8.self) }

    @Test func aFreshCopyIsServedAndAStaleOneRebuilt() throws {
        let clock = SteppedClock()
        let cache = StatusPageCache(lifetimeSeconds: 10, clock: { clock.now() })
        var builds = 0
        func get() throws -> HTTPResponse {
            try cache.response(for: "1/html", version: 1) { builds += 1; return Self.page("build \(builds)") }
        }
        let first = try get()
        #expect(Self.body(first) == "build 1" && first.headers["Age"] == nil)
        clock.advance(seconds: 7.5)
        let hit = try get()
        #expect(Self.body(hit) == "build 1" && hit.headers["Age"] == "7" && builds == 1)
        clock.advance(seconds: 2.5)
        #expect(Self.body(try get()) == "build 2", "10 s old is no longer fresh")
        // An edited page (another version) is built at once, fresh or not;
        // the JSON is another key.
        #expect(Self.body(try cache.response(for: "1/html", version: 2) { Self.page("edited") }) == "edited")
        #expect(Self.body(try cache.response(for: "1/html", version: 2) { Self.page("must not build") }) == "edited")
        #expect(Self.body(try cache.response(for: "1/json", version: 2) { Self.page("json") }) == "json")
        #expect(cache.count == 2)
    }

    @Test func zeroBuildsEveryRequest() throws {
        let cache = StatusPageCache(lifetimeSeconds: 0)
        var builds = 0
        for _ in 0..<3 { _ = try cache.response(for: "k", version: 1) { builds += 1; return Self.page("x") } }
        #expect(builds == 3 && cache.count == 0)
    }

    @Test func aFailureIsNotKept() throws {
        let cache = StatusPageCache(lifetimeSeconds: 10)
        #expect(throws: Broken.self) { try cache.response(for: "k", version: 1) { throw Broken() } }
        #expect(cache.count == 0)
        #expect(Self.body(try cache.response(for: "k", version: 1) { Self.page("ok") }) == "ok")
    }

    /// A second request for a key being built waits for that build and
    /// gets its result; it does not build (its build would answer at once
    /// with another body, so either mistake shows).
    @Test func oneBuildAtATimeAndWaitersShareIt() throws {
        let cache = StatusPageCache(lifetimeSeconds: 10)
        let release = Semaphore()
        let started = Semaphore()
        let done = Semaphore()
        let results = ResultBox()
        let builder = startThread(name: "cache-builder") {
            let r = try? cache.response(for: "k", version: 1) { started.post(); release.wait(); return Self.page("slow build") }
            results.set(0, r.map(Self.body))
            done.post()
        }
        started.wait()
        let waiter = startThread(name: "cache-waiter") {
            let r = try? cache.response(for: "k", version: 1) { Self.page("second build") }
            results.set(1, r.map(Self.body))
            done.post()
        }
        #expect(!done.wait(timeoutNanos: 200_000_000), "the waiter must not answer while the first build runs")
        release.post()
        done.wait()
        done.wait()
        builder.join()
        waiter.join()
        #expect(results.get(0) == "slow build" && results.get(1) == "slow build")
    }

    /// While a stale copy is being rebuilt, other requests get the stale
    /// copy at once, with its age.
    @Test func aStaleCopyIsServedDuringItsRebuild() throws {
        let clock = SteppedClock()
        let cache = StatusPageCache(lifetimeSeconds: 10, clock: { clock.now() })
        _ = try cache.response(for: "k", version: 1) { Self.page("old") }
        clock.advance(seconds: 12)
        let release = Semaphore()
        let started = Semaphore()
        let builder = startThread(name: "cache-rebuild") {
            _ = try? cache.response(for: "k", version: 1) { started.post(); release.wait(); return Self.page("new") }
        }
        started.wait()
        let during = try cache.response(for: "k", version: 1) { Self.page("must not build") }
        #expect(Self.body(during) == "old" && during.headers["Age"] == "12")
        release.post()
        builder.join()
        #expect(Self.body(try cache.response(for: "k", version: 1) { Self.page("must not build") }) == "new")
    }

    @Test func entriesNotBuiltForAMinuteAreDropped() throws {
        let clock = SteppedClock()
        let cache = StatusPageCache(lifetimeSeconds: 10, clock: { clock.now() })
        _ = try cache.response(for: "a", version: 1) { Self.page("a") }
        _ = try cache.response(for: "b", version: 1) { Self.page("b") }
        clock.advance(seconds: 61)
        _ = try cache.response(for: "c", version: 1) { Self.page("c") }
        #expect(cache.count == 1)
    }

    final class ResultBox: @unchecked Sendable {
        private let lock = Condition()
        private var values: [Int: String] = [:]
        func set(_ i: Int, _ v: String?) { lock.lock(); values[i] = v; lock.unlock() }
        func get(_ i: Int) -> String? { lock.lock(); defer { lock.unlock() }; return values[i] }
    }
}
