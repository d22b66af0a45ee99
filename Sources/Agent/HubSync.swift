import Core
import Synchronization

/// Keeps the assignment current and answers check-now requests: one thread
/// long-polls `GET /api/agent/poll?wait=…` without pause, and fetches
/// `GET /api/agent/monitors` (with `If-None-Match`, so an unchanged
/// assignment costs a 304) every poll interval, whenever the poll's
/// `monitors_etag` differs from the one held, and when a check request names
/// a monitor not known here.
final class HubSync: Sendable {
    struct State {
        var etag: String?
        var pollInterval = 10
        var agentName = ""
        var lastFetch: UInt64 = 0
    }

    private let hub: HubClient
    private let checks: AgentChecks
    private let settings: AgentSettings
    private let latch: StopLatch
    private let state = Mutex(State())
    private let thread = Mutex<ThreadHandle?>(nil)
    /// Answers of `/api/agent/monitors` by status, for tests and metrics: [200, 304].
    let fetches = Mutex<[Int: Int]>([:])

    init(hub: HubClient, checks: AgentChecks, settings: AgentSettings, latch: StopLatch) {
        self.hub = hub
        self.checks = checks
        self.settings = settings
        self.latch = latch
    }

    var agentName: String { state.withLock { $0.agentName } }
    var pollInterval: Int { state.withLock { $0.pollInterval } }

    enum FetchOutcome {
        case changed(AgentAssignment)
        case unchanged
        /// Worth retrying (network, 5xx, 429).
        case failed(String)
        /// The hub refuses this agent (401/403) or speaks another protocol.
        case refused(String)
    }

    /// One `GET /api/agent/monitors`; a changed assignment is applied at once.
    @discardableResult
    func fetchMonitors() -> FetchOutcome {
        let etag = state.withLock { $0.etag }
        let reply = hub.get("/api/agent/monitors", headers: etag.map { [("If-None-Match", $0)] } ?? [],
                            timeoutMillis: settings.requestTimeoutMillis)
        guard case .answer(let status, let headers, let body) = reply else { return .failed(reply.summary) }
        fetches.withLock { $0[status, default: 0] += 1 }
        switch status {
        case 304:
            state.withLock { $0.lastFetch = Time.monotonicNanos() }
            return .unchanged
        case 200:
            let assignment: AgentAssignment
            do { assignment = try AgentAssignment.parse(body) } catch { return .refused(error.description) }
            // Checked before anything is applied: a token pasted onto the
            // wrong machine must not run another location's checks.
            if let expected = settings.expectedName, !expected.isEmpty, expected != assignment.agentName {
                return .refused("the hub knows this token as agent '\(assignment.agentName)', not '\(expected)' (--name)")
            }
            let first = state.withLock { $0.etag == nil && $0.agentName.isEmpty }
            let (added, removed) = checks.apply(assignment.monitors, runNewAtOnce: !first)
            let previousName = state.withLock { s -> String in
                defer {
                    s.etag = headers["ETag"]
                    s.pollInterval = assignment.pollInterval
                    s.agentName = assignment.agentName
                    s.lastFetch = Time.monotonicNanos()
                }
                return s.agentName
            }
            if !previousName.isEmpty && previousName != assignment.agentName {
                Log.shared.warn("the hub now names this agent differently", ["was": previousName, "now": assignment.agentName])
            }
            Log.shared.info("monitors assigned", ["agent": assignment.agentName, "monitors": "\(assignment.monitors.count)",
                                                  "added": "\(added)", "removed": "\(removed)",
                                                  "poll_interval": "\(assignment.pollInterval)"])
            for reason in assignment.skipped { Log.shared.warn("monitor skipped", ["reason": reason]) }
            return .changed(assignment)
        case 401, 403:
            return .refused("the hub refused the agent token (HTTP \(status)); was the agent deleted?")
        default:
            return .failed("HTTP \(status)")
        }
    }

    func start() {
        thread.withLock { t in
            guard t == nil else { return }
            t = startThread(name: "agent-poll") { [self] in self.loop() }
        }
    }

    func join() {
        let t = thread.withLock { t in defer { t = nil }; return t }
        t?.join()
    }

    private func loop() {
        var backoff = Backoff(baseMillis: settings.backoffBaseMillis, maxMillis: settings.backoffMaxMillis)
        var failing = false
        while !latch.isStopped {
            let (interval, lastFetch) = state.withLock { ($0.pollInterval, $0.lastFetch) }
            if Time.monotonicNanos() &- lastFetch >= UInt64(interval) * 1_000_000_000 {
                if case .refused(let why) = fetchMonitors() { Log.shared.error("monitors fetch refused", ["error": why]) }
            }
            let wait = min(30, interval)
            let reply = hub.get("/api/agent/poll?wait=\(wait)", timeoutMillis: wait * 1000 + settings.requestTimeoutMillis)
            if latch.isStopped { break }
            guard case .answer(200, _, let body) = reply, let json = try? JSON.parse(body) else {
                let delay = backoff.next()
                if !failing {
                    Log.shared.warn("hub poll failed; retrying", ["error": reply.summary, "retry_in_ms": "\(delay)"])
                    failing = true
                }
                latch.sleep(millis: delay)
                continue
            }
            if failing { Log.shared.info("hub poll works again") }
            failing = false
            backoff.reset()
            if let etag = json["monitors_etag"]?.stringValue, etag != state.withLock({ $0.etag }) {
                fetchMonitors()
            }
            for item in json["checks"]?.arrayValue ?? [] {
                guard let requestID = item["request_id"]?.stringValue, let id = item["monitor_id"]?.intValue else { continue }
                runRequested(requestID: requestID, monitorID: id)
            }
        }
    }

    private func runRequested(requestID: String, monitorID: Int64) {
        if checks.checkNow(monitorID: monitorID, requestID: requestID) {
            Log.shared.info("check requested by the hub", ["monitor_id": "\(monitorID)", "request_id": requestID])
            return
        }
        // Probably assigned since the last fetch: ask once, then try again.
        fetchMonitors()
        if checks.checkNow(monitorID: monitorID, requestID: requestID) {
            Log.shared.info("check requested by the hub", ["monitor_id": "\(monitorID)", "request_id": requestID])
        } else {
            Log.shared.warn("check requested for a monitor not assigned here", ["monitor_id": "\(monitorID)",
                                                                                   "request_id": requestID])
        }
    }
}
