import Core
import Monitoring
import Synchronization

/// The agent process: connects to the hub (and checks it names this agent
/// as expected), then runs three loops until stopped — the scheduler running
/// checks, the uploader sending results, and the hub sync long-polling for
/// check requests and keeping the assignment current. Only outbound
/// connections; TLS is verified (system store plus `extraCAFile`).
///
/// `clock` drives the scheduler and the checks' `at` times; tests pass a
/// `ManualSchedulerClock` to run monitors with 10 s intervals without waiting.
public final class AgentRunner: Sendable {
    public let settings: AgentSettings
    public let buffer: ResultBuffer
    let hub: HubClient
    let checks: AgentChecks
    let uploader: ResultUploader
    let sync: HubSync
    private let latch = StopLatch()
    private let running = Atomic<Bool>(false)

    public init(settings: AgentSettings, clock: any SchedulerClock = SystemSchedulerClock()) {
        self.settings = settings
        buffer = ResultBuffer(limit: settings.bufferLimit)
        hub = HubClient(settings: settings)
        let latch = self.latch
        // The check location name is the agent's, which the hub tells us; it
        // is not sent with results (the token says who we are).
        checks = AgentChecks(settings: settings, location: "agent", clock: clock, buffer: buffer,
                             urgentResult: { latch.nudge() })
        uploader = ResultUploader(hub: hub, buffer: buffer, settings: settings, latch: latch)
        sync = HubSync(hub: hub, checks: checks, settings: settings, latch: latch)
    }

    /// The name the hub reported (empty before `start`).
    public var agentName: String { sync.agentName }
    /// Monitors assigned and scheduled here.
    public var monitorCount: Int { checks.monitorCount }
    /// `GET /api/agent/monitors` answers seen, by status (200, 304).
    public var monitorFetches: [Int: Int] { sync.fetches.withLock { $0 } }
    /// Uploads the hub accepted.
    public var uploadsAccepted: Int { uploader.uploads.load(ordering: .relaxed) }

    /// Blocks until the hub has answered `GET /api/agent/monitors` once
    /// (retrying with backoff while it is unreachable), then starts the
    /// loops. Returns false when `requestStop` came first. Throws when the
    /// hub refuses the token or names the agent other than `expectedName`.
    public func start() throws(AgentSettingsError) -> Bool {
        var backoff = Backoff(baseMillis: settings.backoffBaseMillis, maxMillis: settings.backoffMaxMillis)
        while true {
            if latch.isStopped { return false }
            switch sync.fetchMonitors() {
            case .changed(let assignment):
                Log.shared.info("pingtxt agent connected", ["hub": settings.hubURL, "agent": assignment.agentName,
                                                            "version": settings.version])
                checks.start()
                uploader.start()
                sync.start()
                running.store(true, ordering: .sequentiallyConsistent)
                return true
            case .unchanged:
                continue  // not possible without an ETag held; ask again
            case .refused(let why):
                throw AgentSettingsError(why)
            case .failed(let why):
                let delay = backoff.next()
                Log.shared.warn("cannot reach the hub yet; retrying", ["hub": settings.hubURL, "error": why,
                                                                       "retry_in_ms": "\(delay)"])
                if latch.sleep(millis: delay) { return false }
            }
        }
    }

    /// Asks everything to stop (signal handlers call this); `stop` finishes.
    public func requestStop() { latch.stop() }

    /// Blocks until `requestStop`.
    public func waitForStopRequest() { latch.sleep(millis: nil) }

    /// Stops scheduling, makes one last bounded upload of buffered results
    /// (`finalUploadMillis`), cancels the long poll, then the checks still
    /// in flight, and joins every thread. The upload goes first so a slow
    /// check (a DNS query can hold its worker up to its timeout) cannot
    /// delay delivering what is already there.
    public func stop() {
        latch.stop()
        checks.stopScheduling()
        uploader.join()
        hub.shutdown()
        sync.join()
        checks.shutdown()
        // Only a started agent reports stopping: a refused start is one error line.
        if running.exchange(false, ordering: .sequentiallyConsistent) {
            Log.shared.info("pingtxt agent stopped", ["undelivered": "\(buffer.count)"])
        }
    }
}
