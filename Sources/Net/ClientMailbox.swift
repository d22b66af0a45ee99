import CLinux
import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a caller asks of a loop.
struct ClientJob: Sendable {
    enum Kind: Sendable {
        case http(ClientRequest, @Sendable (ClientResult) -> Void)
        case tcp(host: String, port: Int, @Sendable (TCPProbeResult) -> Void)
        case tls(host: String, port: Int, serverName: String?, verify: Bool, @Sendable (TLSProbeResult) -> Void)
    }
    let kind: Kind
    let submittedAt: UInt64
    let timeoutMillis: Int

    /// Completes the job as cancelled without running it.
    func cancel() {
        var t = ClientTimings()
        t.totalMs = Double(Time.monotonicNanos() &- submittedAt) / 1e6
        let f = ClientFailure.cancelled
        let text = f.describe(timeoutMillis: timeoutMillis)
        switch kind {
        case .http(_, let done):
            done(ClientResult(response: nil, failure: f, timings: t, tls: nil, errorDescription: text))
        case .tcp(_, _, let done):
            done(TCPProbeResult(failure: f, timings: t, address: nil, errorDescription: text))
        case .tls(_, _, _, _, let done):
            done(TLSProbeResult(failure: f, timings: t, tls: nil, address: nil, errorDescription: text))
        }
    }
}

enum LoopMessage: Sendable {
    case start(ClientJob)
    case resolved(id: UInt64, hop: UInt32, result: Result<[IPAddress], ClientFailure>)
    case stop
}

/// The thread-safe door into a client loop: a locked queue plus an eventfd
/// written only when the queue goes from empty to non-empty.
final class ClientMailbox: Sendable {
    let eventFD: Int32
    private struct Queue {
        var items: [LoopMessage] = []
        var closed = false
    }
    private let queue = Mutex(Queue())

    init() {
        eventFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(eventFD >= 0, "eventfd failed: errno \(errno)")
    }

    deinit { close(eventFD) }

    /// False once the loop has ended (the message was not taken).
    @discardableResult
    func post(_ m: LoopMessage) -> Bool {
        let (accepted, wasEmpty) = queue.withLock { q -> (Bool, Bool) in
            if q.closed { return (false, false) }
            let empty = q.items.isEmpty
            q.items.append(m)
            return (true, empty)
        }
        if wasEmpty {
            var one: UInt64 = 1
            _ = write(eventFD, &one, 8)
        }
        return accepted
    }

    func drain() -> [LoopMessage] {
        var value: UInt64 = 0
        _ = read(eventFD, &value, 8)
        return queue.withLock { q in
            let items = q.items
            q.items.removeAll(keepingCapacity: true)
            return items
        }
    }

    /// Refuses further posts and returns whatever was still queued.
    func closeAndDrain() -> [LoopMessage] {
        queue.withLock { q in
            q.closed = true
            let items = q.items
            q.items = []
            return items
        }
    }
}
