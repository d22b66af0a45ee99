import Core
import Synchronization
import Testing

/// `WakeBatch`: wakes asked for inside a run are given once per target at
/// its end, never lost; outside a run the caller wakes at once.
@Suite struct WakeBatchTests {
    final class WakeLog: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ name: String) { entries.withLock { $0.append(name) } }
        var names: [String] { entries.withLock { $0 } }
    }

    final class Target: Wakeable {
        let name: String
        let log: WakeLog
        init(_ name: String, _ log: WakeLog) { (self.name, self.log) = (name, log) }
        func wakeNow() { log.add(name) }
    }

    @Test func outsideARunNothingIsDeferred() {
        let log = WakeLog()
        #expect(!WakeBatch.deferred(Target("a", log)))
        #expect(log.names.isEmpty)
    }

    @Test func eachTargetIsWokenOnceAtTheEndInFirstAskedOrder() {
        let log = WakeLog()
        let (a, b) = (Target("a", log), Target("b", log))
        let result = WakeBatch.run {
            for target in [a, b, a, a, b] { #expect(WakeBatch.deferred(target)) }
            #expect(log.names.isEmpty, "nothing is woken before the run ends")
            return 7
        }
        #expect(result == 7)
        #expect(log.names == ["a", "b"])
        #expect(!WakeBatch.deferred(a), "the run is over")
    }

    @Test func aNestedRunLeavesTheWakesToTheOuterOne() {
        let log = WakeLog()
        let a = Target("a", log)
        WakeBatch.run {
            WakeBatch.run { #expect(WakeBatch.deferred(a)) }
            #expect(log.names.isEmpty)
        }
        #expect(log.names == ["a"])
    }

    @Test func aThrowingRunStillWakes() {
        struct Failed: Error {}
        let log = WakeLog()
        let a = Target("a", log)
        #expect(throws: Failed.self) {
            try WakeBatch.run {
                _ = WakeBatch.deferred(a)
                throw Failed()
            }
        }
        #expect(log.names == ["a"])
    }

    @Test func onlyTheRunningThreadDefers() {
        let log = WakeLog()
        let a = Target("a", log)
        let elsewhere = Mutex<Bool?>(nil)
        WakeBatch.run {
            let thread = startThread(name: "wake-test") { elsewhere.withLock { $0 = WakeBatch.deferred(a) } }
            thread.join()
        }
        #expect(elsewhere.withLock { $0 } == false, "another thread is not inside the run")
        #expect(log.names.isEmpty)
    }
}
