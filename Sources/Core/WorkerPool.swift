import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A fixed set of threads that run jobs (request handlers, blocking checks),
/// so work that waits on the database or the network never stalls an event
/// loop. Jobs run in FIFO order.
///
/// Waking is the expensive part of handing work to a thread, so it happens
/// only when needed: a submit wakes a worker only if one is idle, and the
/// most recently idled one (its cache is warm, and the others can stay
/// asleep). A busy worker takes the next job without sleeping at all.
public final class WorkerPool: @unchecked Sendable {
    private struct State {
        var jobs: [(@Sendable () -> Void)] = []
        var head = 0
        var idle: [Int] = []
        var started = 0
        var stopping = false
    }

    /// `state` is touched only with `lock` held. A pthread mutex, not
    /// `Synchronization.Mutex`: under a flood of requests every loop and
    /// worker takes this lock for each job, and `Mutex` spins before it
    /// sleeps, which on two cores burnt 8.6 % of the hub's CPU in its slow
    /// path (perf, `GET /api/me` under wrk) while the holder waited for a core.
    private let lock = Condition()
    private var _state = State()
    private let wakeups: [Semaphore]
    private let threads: Mutex<[ThreadHandle]> = Mutex([])
    private let name: String
    public let size: Int

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&_state)
    }

    public init(threads count: Int, name: String = "worker") {
        size = max(1, count)
        self.name = name
        wakeups = (0..<size).map { _ in Semaphore() }
    }

    public func submit(_ job: @escaping @Sendable () -> Void) {
        enum Action { case wake(Int), start(Int), none }
        let action = withState { s -> Action in
            s.jobs.append(job)
            if let idle = s.idle.popLast() { return .wake(idle) }
            if s.started < size && !s.stopping {
                s.started += 1
                return .start(s.started - 1)
            }
            return .none
        }
        switch action {
        case .wake(let i): wakeups[i].post()
        case .start(let i):
            let handle = startThread(name: "\(name)-\(i)") { [self] in run(i) }
            threads.withLock { $0.append(handle) }
        case .none: break
        }
    }

    /// Jobs queued but not started (for metrics).
    public var queued: Int { withState { $0.jobs.count - $0.head } }

    /// Lets queued jobs finish, then joins the threads.
    public func shutdown() {
        let sleepers = withState { s -> [Int] in
            s.stopping = true
            let all = s.idle
            s.idle = []
            return all
        }
        for i in sleepers { wakeups[i].post() }
        // A thread started just before `stopping` was set may register its
        // handle after the first take: keep joining until none are left.
        while true {
            let handles = threads.withLock { h in let copy = h; h = []; return copy }
            if handles.isEmpty { return }
            for h in handles { h.join() }
        }
    }

    private enum Next {
        case run(@Sendable () -> Void)
        case sleep
        case exit
    }

    private func run(_ index: Int) {
        while true {
            let next = withState { s -> Next in
                if s.head < s.jobs.count {
                    let job = s.jobs[s.head]
                    s.head += 1
                    // Compact once the consumed prefix dominates: pops stay O(1) amortised.
                    if s.head > 64 && s.head * 2 > s.jobs.count {
                        s.jobs.removeFirst(s.head)
                        s.head = 0
                    }
                    return .run(job)
                }
                if s.stopping { return .exit }
                s.idle.append(index)
                return .sleep
            }
            switch next {
            case .run(let job): job()
            case .sleep: wakeups[index].wait()
            case .exit: return
            }
        }
    }
}
