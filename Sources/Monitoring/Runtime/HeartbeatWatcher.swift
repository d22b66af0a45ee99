#if canImport(Glibc)
import Glibc
#endif
import Core
import Store
import Synchronization

/// Wakes when a heartbeat is due to be judged late and records the verdict.
/// Deadlines come from the pure `HeartbeatEvaluator`, so a heartbeat costs
/// nothing between its deadlines; pings move the deadline.
final class HeartbeatWatcher: Sendable {
    private let deadlines = Mutex<[Int64: Int64]>([:])
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<ThreadHandle?>(nil)
    private let judge: @Sendable (Int64, Int64) -> Int64?

    /// `judge(monitorID, now)` evaluates one heartbeat, records a down
    /// verdict if it is late, and returns its next deadline.
    init(judge: @escaping @Sendable (Int64, Int64) -> Int64?) {
        self.judge = judge
    }

    func setDeadline(_ id: Int64, _ deadline: Int64?) {
        deadlines.withLock { $0[id] = deadline }
    }

    func remove(_ id: Int64) {
        deadlines.withLock { $0[id] = nil }
    }

    func start() {
        let handle = startThread(name: "heartbeats") { [self] in loop() }
        thread.withLock { $0 = handle }
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let handle = thread.withLock { h in let copy = h; h = nil; return copy }
        handle?.join()
    }

    /// Checks once a second: deadlines have one-second resolution anyway, and
    /// a sorted structure would not pay for itself at a few thousand entries.
    private func loop() {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let now = Time.now()
            let due = deadlines.withLock { d in d.filter { $0.value <= now }.map(\.key) }
            for id in due {
                let next = judge(id, now)
                deadlines.withLock { $0[id] = next }
            }
            var rest = timespec(tv_sec: 0, tv_nsec: 200_000_000)
            for _ in 0..<5 where !stopping.load(ordering: .sequentiallyConsistent) {
                nanosleep(&rest, nil)
            }
        }
    }
}
