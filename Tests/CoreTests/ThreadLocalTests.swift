import Core
import Synchronization
import Testing

/// `ThreadLocal`: one object per thread, the same one on every access from
/// that thread, released when the thread ends.
@Suite struct ThreadLocalTests {
    final class Counter {
        var value = 0
    }

    /// Weak references to the objects made, so a test can see them go.
    final class Made: Sendable {
        private let objects = Mutex<[Weak]>([])
        struct Weak: @unchecked Sendable { weak var object: Counter? }
        func add(_ c: Counter) { objects.withLock { $0.append(Weak(object: c)) } }
        var alive: Int { objects.withLock { $0.filter { $0.object != nil }.count } }
        var count: Int { objects.withLock { $0.count } }
    }

    @Test func eachThreadHasItsOwnObjectReleasedWhenTheThreadEnds() {
        let made = Made()
        let local = ThreadLocal { () -> Counter in
            let c = Counter()
            made.add(c)
            return c
        }
        let results = Mutex<[Int]>([])
        let threads = (0..<4).map { n in
            startThread(name: "tl-\(n)") {
                for _ in 0..<(n + 1) * 10 { local.value.value += 1 }
                results.withLock { $0.append(local.value.value) }
            }
        }
        for t in threads { t.join() }
        // No lost or shared increments: thread n counted only its own.
        #expect(results.withLock { $0.sorted() } == [10, 20, 30, 40])
        #expect(made.count == 4, "one object per thread, made once")
        #expect(made.alive == 0, "each released when its thread ended")
    }

    @Test func theSameObjectOnEveryAccess() {
        let local = ThreadLocal { Counter() }
        let handle = startThread(name: "tl-same") {
            let a = local.value
            a.value = 7
            #expect(local.value === a && local.value.value == 7)
        }
        handle.join()
    }
}
