import CLinux
import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The one thread-safe door into an event loop: workers post finished
/// responses here and the server posts "stop". An eventfd wakes the loop;
/// it is written only when the queue goes from empty to non-empty, and the
/// loop reads the eventfd before draining, so no post is ever missed.
/// A thread handing out a run of answers (`WakeBatch.run`) wakes the loop
/// once at the end of the run instead.
final class LoopMailbox: Wakeable {
    struct Completion: Sendable {
        let connectionID: UInt64
        let response: HTTPResponse
        let route: String
    }

    let eventFD: Int32
    private let queue = Mutex<[Completion]>([])
    private let stopRequested = Atomic<Bool>(false)

    init() throws(SystemError) {
        eventFD = try sys("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    deinit { close(eventFD) }

    func post(_ completion: Completion) {
        let wasEmpty = queue.withLock { q in
            let empty = q.isEmpty
            q.append(completion)
            return empty
        }
        if wasEmpty && !WakeBatch.deferred(self) { wake() }
    }

    /// The end of a `WakeBatch` run: wakes the loop unless it took
    /// everything meanwhile.
    func wakeNow() {
        if !queue.withLock({ $0.isEmpty }) { wake() }
    }

    func requestStop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }

    /// Resets the eventfd, then takes everything queued.
    func drain() -> [Completion] {
        var value: UInt64 = 0
        _ = read(eventFD, &value, 8)
        return queue.withLock { q in
            let items = q
            q.removeAll(keepingCapacity: true)
            return items
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(eventFD, &one, 8)
    }
}
