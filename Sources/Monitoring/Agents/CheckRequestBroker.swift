import Core
import Crypto
import Synchronization

/// One check-now request for one agent.
public struct CheckRequest: Sendable, Equatable {
    public var id: String
    public var monitorID: Int64
    public var agentID: Int64
}

/// What a check-now is waiting for: one result per asked agent. The waiting
/// thread sleeps on the semaphore; answers arrive from results uploads.
final class CheckNowWait: Sendable {
    let requests: [CheckRequest]
    private let answers = Mutex<[Int64: CheckResult]>([:])
    private let arrived = Semaphore()

    init(requests: [CheckRequest]) {
        self.requests = requests
    }

    /// True the first time this agent answers.
    func answer(agentID: Int64, _ result: CheckResult) -> Bool {
        let first = answers.withLock { a -> Bool in
            guard a[agentID] == nil else { return false }
            a[agentID] = result
            return true
        }
        if first { arrived.post() }
        return first
    }

    /// Waits until every agent answered or `deadlineNanos` (monotonic) passed.
    func wait(untilNanos deadline: UInt64) -> [Int64: CheckResult] {
        var taken = 0
        while taken < requests.count {
            let now = Time.monotonicNanos()
            guard now < deadline, arrived.wait(timeoutNanos: deadline - now) else { break }
            taken += 1
        }
        return answers.withLock { $0 }
    }
}

/// Check-now requests on their way to agents, and the agents' parked long
/// polls. A poll is a deferred HTTP answer (`respond`), so waiting holds no
/// thread; it is answered when work arrives, when the agent polls again,
/// or by `expire` (the liveness watcher's tick) when its `wait` is over.
/// `respond` closures are always called outside the lock.
final class CheckRequestBroker: Sendable {
    typealias Respond = @Sendable ([CheckRequest]) -> Void

    private struct Poll {
        var deadlineMs: Int64
        var respond: Respond
    }

    private struct State {
        var pending: [Int64: [CheckRequest]] = [:]
        var polls: [Int64: Poll] = [:]
        var waits: [String: CheckNowWait] = [:]
    }

    private let state = Mutex(State())

    /// Queues one request per agent for the monitor and wakes their polls.
    func ask(monitorID: Int64, agentIDs: [Int64]) -> CheckNowWait {
        let requests = agentIDs.map { CheckRequest(id: "c-" + Hex.encode(SecureRandom.bytes(6)), monitorID: monitorID, agentID: $0) }
        let wait = CheckNowWait(requests: requests)
        let woken = state.withLock { s -> [(Respond, [CheckRequest])] in
            for r in requests {
                s.pending[r.agentID, default: []].append(r)
                s.waits[r.id] = wait
            }
            return agentIDs.compactMap { id in Self.takeWork(agentID: id, from: &s) }
        }
        for (respond, work) in woken { respond(work) }
        return wait
    }

    /// An agent's long poll: answered at once when work is queued, else
    /// parked until `deadlineMs`. A newer poll of the same agent ends the
    /// older one (with no work) so there is one per agent.
    func poll(agentID: Int64, deadlineMs: Int64, respond: @escaping Respond) {
        let (now, replaced) = state.withLock { s -> ([CheckRequest]?, Respond?) in
            let old = s.polls.removeValue(forKey: agentID)?.respond
            if let work = s.pending.removeValue(forKey: agentID), !work.isEmpty { return (work, old) }
            s.polls[agentID] = Poll(deadlineMs: deadlineMs, respond: respond)
            return (nil, old)
        }
        replaced?([])
        if let now { respond(now) }
    }

    /// A result carrying `request_id`: hands it to the waiting check-now when
    /// the request was made to this agent. Returns whether it was waited for.
    @discardableResult
    func answer(requestID: String, agentID: Int64, monitorID: Int64, _ result: CheckResult) -> Bool {
        guard let wait = state.withLock({ $0.waits[requestID] }),
              wait.requests.contains(where: { $0.id == requestID && $0.agentID == agentID && $0.monitorID == monitorID })
        else { return false }
        return wait.answer(agentID: agentID, result)
    }

    /// The check-now is over: its unanswered requests are withdrawn.
    func withdraw(_ wait: CheckNowWait) {
        let ids = Set(wait.requests.map(\.id))
        state.withLock { s in
            for id in ids { s.waits[id] = nil }
            for agent in Set(wait.requests.map(\.agentID)) {
                s.pending[agent]?.removeAll { ids.contains($0.id) }
                if s.pending[agent]?.isEmpty == true { s.pending[agent] = nil }
            }
        }
    }

    /// Answers every poll whose wait is over (with no work).
    func expire(nowMs: Int64) {
        let due = state.withLock { s -> [Respond] in
            let ids = s.polls.filter { $0.value.deadlineMs <= nowMs }.map(\.key)
            return ids.compactMap { s.polls.removeValue(forKey: $0)?.respond }
        }
        for respond in due { respond([]) }
    }

    /// The agent was deleted: end its poll, drop its requests.
    func drop(agentID: Int64) {
        let respond = state.withLock { s -> Respond? in
            s.pending[agentID] = nil
            return s.polls.removeValue(forKey: agentID)?.respond
        }
        respond?([])
    }

    /// Agents with a poll parked now (contact in progress).
    var connected: Set<Int64> { state.withLock { Set($0.polls.keys) } }

    /// Ends every parked poll (shutdown).
    func closeAll() {
        let all = state.withLock { s -> [Respond] in
            defer { s.polls = [:] }
            return s.polls.values.map(\.respond)
        }
        for respond in all { respond([]) }
    }

    private static func takeWork(agentID: Int64, from s: inout State) -> (Respond, [CheckRequest])? {
        guard let poll = s.polls[agentID], let work = s.pending[agentID], !work.isEmpty else { return nil }
        s.polls[agentID] = nil
        s.pending[agentID] = nil
        return (poll.respond, work)
    }
}
