
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A fixed set of threads that run handlers, so a handler that waits on the
/// database or the network never stalls an event loop. Jobs run in FIFO
/// order; `shutdown` lets queued jobs finish, then joins the threads.
public final class WorkerPool: Sendable {
    private struct State {
        var jobs: [(@Sendable () -> Void)] = []
        var head = 0
        var stopping = false
        var idle = 0
    }

    private let state = Mutex(State())
    private let signal = Semaphore()
    private let threads: Mutex<[ThreadHandle]> = Mutex([])
    public let size: Int

    public init(threads count: Int, name: String = "worker") {
        size = max(1, count)
        var handles: [ThreadHandle] = []
        for i in 0..<size {
            handles.append(startThread(name: "\(name)-\(i)") { [self] in run() })
        }
        threads.withLock { $0 = handles }
    }

    public func submit(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.jobs.append(job) }
        signal.post()
    }

    /// Jobs queued but not started (for metrics).
    public var queued: Int { state.withLock { $0.jobs.count - $0.head } }

    public func shutdown() {
        state.withLock { $0.stopping = true }
        for _ in 0..<size { signal.post() }
        let handles = threads.withLock { h in let copy = h; h = []; return copy }
        for h in handles { h.join() }
    }

    private func run() {
        while true {
            signal.wait()
            let job: (@Sendable () -> Void)? = state.withLock { s in
                if s.head < s.jobs.count {
                    let j = s.jobs[s.head]
                    s.head += 1
                    // Compact once the consumed prefix dominates, keeping pops O(1) amortised.
                    if s.head > 64 && s.head * 2 > s.jobs.count {
                        s.jobs.removeFirst(s.head)
                        s.head = 0
                    }
                    return j
                }
                return nil
            }
            if let job {
                job()
            } else if state.withLock({ $0.stopping && $0.head >= $0.jobs.count }) {
                return
            }
        }
    }
}
