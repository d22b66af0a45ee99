import CShims
import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The hub's outbound HTTP(S) / TCP / TLS client: `loops` epoll threads, each
/// running up to `maxConcurrent / loops` exchanges at once (the rest wait in
/// FIFO order, their deadline already running), a small resolver pool with a
/// cache, and one shared `SSL_CTX`.
///
/// Completions run on an engine loop thread: they must return quickly and
/// never block (no blocking `execute` from inside one; hand work to another
/// thread instead). One connection per exchange, closed afterwards.
///
/// Creating an engine sets SIGPIPE to ignored process-wide (TLS writes go
/// through `write(2)`, which would otherwise raise it).
public final class ClientEngine: Sendable {
    private let mailboxes: [ClientMailbox]
    private let threads: Mutex<[ThreadHandle]>
    let resolver: Resolver
    /// Ping checks wait in `poll` for their replies (at most their timeout
    /// each): a few threads of their own, started on first use, keep them
    /// off the loops. ICMP's kernel-side filtering makes an epoll loop for
    /// them more machinery than ping checks at monitoring rates need.
    let pingPool = WorkerPool(threads: 8, name: "ping")
    private let roundRobin = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)

    /// `sourceAddress`: the local address every connection is bound to
    /// before connecting (`[checks] source_address`, for multi-homed hosts);
    /// nil lets the kernel choose. Targets of the other family are refused.
    public init(loops: Int = 1, maxConcurrent: Int = 4096, extraCAFile: String? = nil, sourceAddress: IPAddress? = nil) {
        pt_ignore_sigpipe()
        let count = max(1, loops)
        let resolver = Resolver()
        self.resolver = resolver
        let tls = TLSContext(extraCAFile: extraCAFile)
        let perLoop = max(1, (max(1, maxConcurrent) + count - 1) / count)
        var boxes: [ClientMailbox] = []
        var handles: [ThreadHandle] = []
        for i in 0..<count {
            let mailbox = ClientMailbox()
            boxes.append(mailbox)
            let seed = LoopSeed(mailbox: mailbox, resolver: resolver, tls: tls, maxActive: perLoop,
                                sourceAddress: sourceAddress)
            handles.append(startThread(name: "pt-client-\(i)") { seed.run() })
        }
        mailboxes = boxes
        threads = Mutex(handles)
    }

    // MARK: HTTP

    /// Runs a request; `completion` is called exactly once, on a loop thread.
    public func execute(_ request: ClientRequest, completion: @escaping @Sendable (ClientResult) -> Void) {
        post(ClientJob(kind: .http(request, completion), submittedAt: Time.monotonicNanos(),
                       timeoutMillis: request.timeoutMillis))
    }

    /// Blocking convenience. Never call it from a completion (an engine thread).
    public func execute(_ request: ClientRequest) -> ClientResult {
        blocking { done in execute(request, completion: done) }
    }

    // MARK: probes

    /// Resolves and connects, then closes: for tcp monitors.
    public func connectTCP(host: String, port: Int, timeoutMillis: Int,
                           completion: @escaping @Sendable (TCPProbeResult) -> Void) {
        post(ClientJob(kind: .tcp(host: host, port: port, completion), submittedAt: Time.monotonicNanos(),
                       timeoutMillis: timeoutMillis))
    }

    public func connectTCP(host: String, port: Int, timeoutMillis: Int) -> TCPProbeResult {
        blocking { done in connectTCP(host: host, port: port, timeoutMillis: timeoutMillis, completion: done) }
    }

    /// Resolves, connects and completes a TLS handshake, then closes: for tls
    /// monitors. `serverName` (default: host) is sent as SNI and checked
    /// against the certificate. `tls` is filled whenever a certificate
    /// arrived; with `verify` false a bad certificate is not a failure.
    public func probeTLS(host: String, port: Int, serverName: String? = nil, timeoutMillis: Int, verify: Bool,
                         completion: @escaping @Sendable (TLSProbeResult) -> Void) {
        post(ClientJob(kind: .tls(host: host, port: port, serverName: serverName, verify: verify, completion),
                       submittedAt: Time.monotonicNanos(), timeoutMillis: timeoutMillis))
    }

    public func probeTLS(host: String, port: Int, serverName: String? = nil, timeoutMillis: Int,
                         verify: Bool) -> TLSProbeResult {
        blocking { done in
            probeTLS(host: host, port: port, serverName: serverName, timeoutMillis: timeoutMillis,
                     verify: verify, completion: done)
        }
    }

    // MARK: life cycle

    /// Cancels everything in flight or queued (completions get `.cancelled`),
    /// stops the loops and resolver threads. Later calls complete at once
    /// with `.cancelled`.
    public func shutdown() {
        guard !closed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        for m in mailboxes { m.post(.stop) }
        let list = threads.withLock { l in let c = l; l = []; return c }
        for t in list { t.join() }
        resolver.shutdown()
        pingPool.shutdown()
    }

    private func post(_ job: ClientJob) {
        if closed.load(ordering: .sequentiallyConsistent) { return job.cancel() }
        let i = roundRobin.wrappingAdd(1, ordering: .relaxed).oldValue
        let mailbox = mailboxes[(i & Int.max) % mailboxes.count]
        if !mailbox.post(.start(job)) { job.cancel() }
    }

    private func blocking<R: Sendable>(_ start: (@escaping @Sendable (R) -> Void) -> Void) -> R {
        let done = Semaphore()
        let slot = Mutex<R?>(nil)
        start { result in
            slot.withLock { $0 = result }
            done.post()
        }
        done.wait()
        return slot.withLock { $0! }
    }
}

/// What crosses to a loop thread; the loop itself is built there.
private struct LoopSeed: Sendable {
    let mailbox: ClientMailbox
    let resolver: Resolver
    let tls: TLSContext
    let maxActive: Int
    let sourceAddress: IPAddress?

    func run() {
        let loop = ClientLoop(mailbox: mailbox, resolver: resolver, tls: tls, maxActive: maxActive,
                              sourceAddress: sourceAddress)
        loop.run()
    }
}
