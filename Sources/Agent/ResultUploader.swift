import Core
import Monitoring
import Synchronization

/// Sends buffered results to `POST /api/agent/results` in batches of at most
/// `batchLimit`: when a batch is full, when a check-now answer is waiting,
/// or when the oldest result has waited `flushIntervalMillis`. Failures are
/// retried with exponential backoff; results stay buffered meanwhile (the
/// buffer's bound decides what is kept). The hub ignores a result it already
/// has, so re-sending after a timeout is safe.
final class ResultUploader: Sendable {
    private let hub: HubClient
    private let buffer: ResultBuffer
    private let settings: AgentSettings
    private let latch: StopLatch
    private let thread = Mutex<ThreadHandle?>(nil)
    /// Uploads accepted by the hub (for tests and logs).
    let uploads = Atomic<Int>(0)

    init(hub: HubClient, buffer: ResultBuffer, settings: AgentSettings, latch: StopLatch) {
        self.hub = hub
        self.buffer = buffer
        self.settings = settings
        self.latch = latch
    }

    func start() {
        thread.withLock { t in
            guard t == nil else { return }
            t = startThread(name: "agent-upload") { [self] in self.loop() }
        }
    }

    /// A result the hub is waiting for arrived: send without the flush delay.
    func nudge() { latch.nudge() }

    /// Waits for the thread, which after the latch is stopped makes one last
    /// bounded attempt to deliver what is buffered.
    func join() {
        let t = thread.withLock { t in defer { t = nil }; return t }
        t?.join()
    }

    private func loop() {
        var backoff = Backoff(baseMillis: settings.backoffBaseMillis, maxMillis: settings.backoffMaxMillis)
        var failingSince: Int?
        while !latch.isStopped {
            let due = buffer.due(batchLimit: settings.batchLimit, flushMillis: settings.flushIntervalMillis)
            guard due.now else {
                latch.sleep(millis: due.waitMillis ?? 1000, wakeOnNudge: true)
                continue
            }
            switch uploadOne(timeoutMillis: settings.requestTimeoutMillis) {
            case .delivered(let n):
                if let since = failingSince {
                    Log.shared.info("hub reachable again: buffered results delivered",
                                    ["failed_attempts": "\(since)", "buffered": "\(buffer.count)", "sent": "\(n)"])
                    failingSince = nil
                }
                backoff.reset()
            case .failed(let why):
                let delay = backoff.next()
                if failingSince == nil {
                    Log.shared.warn("result upload failed; keeping results and retrying",
                                    ["error": why, "buffered": "\(buffer.count)", "retry_in_ms": "\(delay)"])
                }
                failingSince = backoff.failures
                reportDrops()
                latch.sleep(millis: delay)
            }
        }
        finalFlush()
    }

    /// On stop: one bounded attempt to empty the buffer.
    private func finalFlush() {
        let deadline = Time.monotonicNanos() + UInt64(settings.finalUploadMillis) * 1_000_000
        var sent = 0
        while buffer.count > 0 {
            let now = Time.monotonicNanos()
            guard now < deadline else { break }
            let left = Int((deadline - now) / 1_000_000)
            guard case .delivered(let n) = uploadOne(timeoutMillis: max(1, min(left, settings.requestTimeoutMillis))) else { break }
            sent += n
        }
        let left = buffer.count
        if left > 0 {
            Log.shared.warn("stopping with results not delivered", ["results": "\(left)", "delivered": "\(sent)"])
        } else if sent > 0 {
            Log.shared.info("last results delivered before stopping", ["results": "\(sent)"])
        }
    }

    private enum Outcome { case delivered(Int), failed(String) }

    private func uploadOne(timeoutMillis: Int) -> Outcome {
        let batch = buffer.batch(max: settings.batchLimit)
        guard let last = batch.last else { return .delivered(0) }
        let reply = hub.post("/api/agent/results", json: UploadedResult.batchJSON(batch.map(\.result)),
                             timeoutMillis: timeoutMillis)
        switch reply.status {
        case 200?:
            buffer.remove(through: last.sequence)
            uploads.add(1, ordering: .relaxed)
            if case .answer(_, _, let body) = reply, let json = try? JSON.parse(body),
               let ignored = json["ignored"]?.intValue, ignored > 0 {
                // Monitors reassigned or deleted since the last fetch: normal, not an error.
                Log.shared.debug("hub ignored some results", ["ignored": "\(ignored)", "sent": "\(batch.count)"])
            }
            return .delivered(batch.count)
        case 400?, 413?, 422?:
            // The hub will never take this batch; retrying would block every later result.
            buffer.remove(through: last.sequence)
            Log.shared.error("hub refused a batch of results; dropped it", ["status": reply.summary, "results": "\(batch.count)"])
            return .delivered(0)
        default:
            return .failed(reply.summary)
        }
    }

    private func reportDrops() {
        let dropped = buffer.takeDropped()
        if dropped > 0 {
            Log.shared.warn("result buffer full while the hub is unreachable: oldest results dropped",
                            ["dropped": "\(dropped)", "limit": "\(buffer.limit)"])
        }
    }
}
