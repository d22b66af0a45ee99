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
    /// Counts the answers themselves rather than the wake-ups, so it can be
    /// called again (in slices) and a late duplicate post changes nothing.
    func wait(untilNanos deadline: UInt64) -> [Int64: CheckResult] {
        while answers.withLock({ $0.count }) < requests.count {
            let now = Time.monotonicNanos()
            guard now < deadline, arrived.wait(timeoutNanos: deadline - now) else { break }
        }
        return answers.withLock { $0 }
    }

    /// The requests no answer arrived for yet.
    var unanswered: [CheckRequest] {
        let answered = answers.withLock { Set($0.keys) }
        return requests.filter { !answered.contains($0.agentID) }
    }
}

/// Check-now requests on their way to agents, and the agents' parked long
/// polls. A poll is a deferred HTTP answer (`respond`), so waiting holds no
/// thread; it is answered when work arrives, when the agent polls again,
/// or by `expire` (the liveness watcher's tick) when its `wait` is over.
/// `respond` closures are always called outside the lock.
final class CheckRequestBroker: Sendable {
    typealias Respond = @Sendable ([CheckRequest]) -> Void

    fileprivate struct Poll {
        var deadlineMs: Int64
        var respond: Respond
        /// `State.assignments` when it was parked.
        var assignments: UInt64
    }

    private struct State {
        var pending: [Int64: [CheckRequest]] = [:]
        var polls: [Int64: Poll] = [:]
        var waits: [String: CheckNowWait] = [:]
        /// Counts assignment changes; polls parked before the last one are
        /// woken (`wakeStale`) so their agents see the new `monitors_etag`.
        var assignments: UInt64 = 0
        var wokenAt: UInt64 = 0
        /// `closeAll` ran (drain or stop): polls are no longer parked.
        var closed = false
    }

    private let state = Mutex(State())

    /// One new request per agent, with ids nobody can guess or collide with.
    static func requests(monitorID: Int64, agentIDs: [Int64]) -> [CheckRequest] {
        agentIDs.map { CheckRequest(id: "c-" + Hex.encode(SecureRandom.bytes(6)), monitorID: monitorID, agentID: $0) }
    }

    /// Queues one request per agent for the monitor and wakes their polls.
    func ask(monitorID: Int64, agentIDs: [Int64]) -> CheckNowWait {
        let requests = Self.requests(monitorID: monitorID, agentIDs: agentIDs)
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
            s.polls[agentID] = Poll(deadlineMs: deadlineMs, respond: respond, assignments: s.assignments)
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
            defer { s.polls = [:]; s.closed = true }
            return s.polls.values.map(\.respond)
        }
        for respond in all { respond([]) }
    }

    // MARK: hubs sharing a database (CheckRequestRelay)

    /// A check-now whose requests travel through the database: only its
    /// answers are routed here (`answer`, `wait(for:)`).
    func register(_ wait: CheckNowWait) {
        state.withLock { s in for r in wait.requests { s.waits[r.id] = wait } }
    }

    /// The check-now this hub waits on that made the request.
    func wait(for requestID: String) -> CheckNowWait? { state.withLock { $0.waits[requestID] } }

    /// Every check-now this hub waits on.
    var waits: [CheckNowWait] {
        state.withLock { s in
            var seen = Set<ObjectIdentifier>()
            return s.waits.values.filter { seen.insert(ObjectIdentifier($0)).inserted }
        }
    }

    /// A parked poll, taken out while its work is looked up elsewhere.
    struct ParkedPoll {
        fileprivate let poll: Poll
        var respond: Respond { poll.respond }
    }

    /// Takes the agent's parked poll out (nil: none parked here). It must go
    /// back (`repark`) or be answered.
    func takePoll(agentID: Int64) -> ParkedPoll? {
        state.withLock { $0.polls.removeValue(forKey: agentID) }.map { ParkedPoll(poll: $0) }
    }

    /// Puts a taken poll back, unless the agent polled again meanwhile (then
    /// the old one ends with no work, as a replaced poll always does) or
    /// the hub is shutting down.
    func repark(agentID: Int64, _ parked: ParkedPoll) {
        let replaced = state.withLock { s -> Bool in
            guard s.polls[agentID] == nil, !s.closed else { return true }
            s.polls[agentID] = parked.poll
            return false
        }
        if replaced { parked.respond([]) }
    }

    func hasPoll(agentID: Int64) -> Bool { state.withLock { $0.polls[agentID] != nil } }

    /// Monitors changed (here or through another hub, already in the
    /// registry): polls parked until now will be woken by `wakeStale`.
    func assignmentsChanged() {
        state.withLock { $0.assignments &+= 1 }
    }

    /// Answers, with no work, every poll parked before the last assignment
    /// change: the answer's `monitors_etag` tells each agent whether its
    /// own assignment changed. Called from the watcher's tick, so a burst of
    /// changes (an import) wakes each agent a few times, not once per change.
    /// A poll parked after the change is left alone, so an agent that just
    /// fetched its monitors is not sent straight back; one whose previous
    /// answer came a moment before the change learns of it at its regular
    /// monitors fetch (every poll interval), as without wake-ups.
    func wakeStale() {
        let stale = state.withLock { s -> [Respond] in
            guard s.wokenAt != s.assignments else { return [] }
            s.wokenAt = s.assignments
            let ids = s.polls.filter { $0.value.assignments != s.assignments }.map(\.key)
            return ids.compactMap { s.polls.removeValue(forKey: $0)?.respond }
        }
        for respond in stale { respond([]) }
    }

    /// Ends the polls of agents that no longer exist (deleted through another hub).
    func dropAll(except known: Set<Int64>) {
        for id in state.withLock({ $0.polls.keys.filter { !known.contains($0) } }) { drop(agentID: id) }
    }

    private static func takeWork(agentID: Int64, from s: inout State) -> (Respond, [CheckRequest])? {
        guard let poll = s.polls[agentID], let work = s.pending[agentID], !work.isEmpty else { return nil }
        s.polls[agentID] = nil
        s.pending[agentID] = nil
        return (poll.respond, work)
    }
}
