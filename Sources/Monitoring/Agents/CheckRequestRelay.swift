import Core
import Store
import Synchronization

/// Check-now requests when hubs share a database (SPEC §14: check-now and
/// agent long polls work whichever hub the request reaches).
///
/// The hub that receives the check-now does not know where the agent's
/// poll is parked, and the agent may upload its answer through yet another
/// hub. So the request is a `check_requests` row, and the wake-up channel
/// only says where to look:
///
/// 1. `ask` inserts one row per agent and, in the same transaction, sends
///    `check:<agent>`. Every hub marks the agent as hinted.
/// 2. The hub holding the agent's poll claims the rows (compare-and-set,
///    so a request is handed out once) and answers the poll with them. A
///    poll that parks while its agent is hinted claims too, so a request
///    made between two polls goes out with the next one, wherever it lands.
/// 3. The hub that receives the upload writes the answer into the row and
///    sends `answered:<request>` (`recordAnswers`, in the upload's
///    transaction); the asking hub reads it and hands it to its wait.
///
/// A lost signal (a hub reconnecting its listener) costs latency only:
/// `resync`, after every reconnect and every cluster beat, re-reads the
/// open requests and the answers this hub waits for. Database work runs on
/// the relay's own thread, never on an event loop or the listener's thread.
final class CheckRequestRelay: Sendable {
    private let database: Database
    private let wake: WakeChannel
    private let nodeID: String
    private let broker: CheckRequestBroker
    private let roster: AgentRoster
    private let clock: @Sendable () -> Int64
    /// How long an agent stays hinted after a signal about it: longer than
    /// any check-now waits, so a hint never ends before its request.
    static let hintMillis: Int64 = 20_000

    private struct State {
        /// Agents that may have unclaimed requests in the database, until when (ms).
        var hinted: [Int64: Int64] = [:]
        /// Hinted agents to look for now (claimed if their poll is parked here).
        var due: Set<Int64> = []
        /// Requests whose answers may be in the database.
        var answers: Set<String> = []
        var resync = false
        /// Resyncs asked for so far; `resyncsDone` catches up after each re-read.
        var resyncsAsked = 0
    }

    private let state = Mutex(State())
    private let kick = Semaphore()
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<ThreadHandle?>(nil)
    /// The resyncs asked for when the last finished re-read began: a caller
    /// that asked for resync number N knows the database was re-read after
    /// its request once this reaches N (the cluster tests wait on it).
    private let resyncsDone = Atomic<Int>(0)

    init(database: Database, wake: WakeChannel, nodeID: String, broker: CheckRequestBroker, roster: AgentRoster,
         clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.wake = wake
        self.nodeID = nodeID
        self.broker = broker
        self.roster = roster
        self.clock = clock
    }

    func start() {
        thread.withLock { t in
            guard t == nil else { return }
            t = startThread(name: "check-relay") { [self] in loop() }
        }
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        kick.post()
        let handle = thread.withLock { t in defer { t = nil }; return t }
        handle?.join()
    }

    // MARK: the asking hub

    /// Records one request per agent and wakes whichever hub holds their
    /// polls. The wait is registered first: an answer may come back before
    /// this returns.
    func ask(monitorID: Int64, agentIDs: [Int64], waitMs: Int64) throws -> CheckNowWait {
        let requests = CheckRequestBroker.requests(monitorID: monitorID, agentIDs: agentIDs)
        let wait = CheckNowWait(requests: requests)
        broker.register(wait)
        let now = clock()
        do {
            try database.write { c in
                try CheckRequests.insert(c, ids: requests.map { ($0.id, $0.agentID) }, monitorID: monitorID, askedBy: nodeID,
                                         now: now, expiresAt: now + waitMs)
                for id in Set(agentIDs) { try wake.send(c, .check(agentID: id)) }
            }
        } catch {
            broker.withdraw(wait)
            throw error
        }
        // Polls parked on this hub need no round trip through the channel.
        hint(agentIDs)
        return wait
    }

    /// The check-now is over: its rows go (a failure here leaves them to
    /// expire; expired rows are never handed out).
    func withdraw(_ wait: CheckNowWait) {
        broker.withdraw(wait)
        do {
            try database.write { c in try CheckRequests.delete(c, ids: wait.requests.map(\.id)) }
        } catch {
            Log.shared.warn("could not withdraw check requests", ["error": "\(error)"])
        }
    }

    // MARK: signals

    /// `check:<agent>` arrived (or this hub asked): look for its requests.
    func hint(_ agentIDs: [Int64]) {
        let until = clock() + Self.hintMillis
        state.withLock { s in
            for id in agentIDs {
                s.hinted[id] = max(s.hinted[id] ?? 0, until)
                s.due.insert(id)
            }
        }
        kick.post()
    }

    /// `answered:<request>` arrived.
    func answered(requestID: String) {
        guard broker.wait(for: requestID) != nil else { return }
        state.withLock { _ = $0.answers.insert(requestID) }
        kick.post()
    }

    /// Signals may have been missed: re-read everything they announce.
    /// Returns the resync's number (see `resyncFinished`).
    @discardableResult
    func resync() -> Int {
        let asked = state.withLock { s in
            s.resync = true
            s.resyncsAsked += 1
            return s.resyncsAsked
        }
        kick.post()
        return asked
    }

    /// Whether resync number `asked` has been carried out (its re-read began
    /// after it was asked for, and has ended).
    func resyncFinished(_ asked: Int) -> Bool {
        resyncsDone.load(ordering: .sequentiallyConsistent) >= asked
    }

    /// The agent's poll was just parked here. Returns whether the agent is
    /// hinted (its requests are then claimed on the relay's thread).
    func pollParked(agentID: Int64) -> Bool {
        let now = clock()
        let hinted = state.withLock { s -> Bool in
            guard let until = s.hinted[agentID] else { return false }
            guard until > now else {
                s.hinted[agentID] = nil
                return false
            }
            s.due.insert(agentID)
            return true
        }
        if hinted { kick.post() }
        return hinted
    }

    // MARK: the uploading hub

    /// Inside the upload's transaction: each result that answers a request
    /// handed to this agent is stored in the request's row, and the asking
    /// hub is woken if it is another one (this hub's own waits get the
    /// answer from the broker after the commit, as when alone).
    func recordAnswers(_ c: Connection, _ results: [UploadedResult], agentID: Int64) throws(StoreError) {
        for r in results {
            guard let id = r.requestID, WakeSignal.isRequestID(id) else { continue }
            let answer = CheckRequestAnswer(atMs: r.atMs, status: r.outcome.rawValue, latencyMs: r.latencyMs.map(Int64.init),
                                            statusCode: r.statusCode.map(Int64.init), error: r.error, certNotAfter: r.certNotAfter,
                                            packetLoss: r.packetLoss)
            guard let asker = try CheckRequests.answer(c, id: id, agentID: agentID, monitorID: r.monitorID, answer),
                  asker != nodeID else { continue }
            try wake.send(c, .answered(requestID: id))
        }
    }

    // MARK: the relay's thread

    private func loop() {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            kick.wait()
            if stopping.load(ordering: .sequentiallyConsistent) { break }
            let resync = state.withLock { s in defer { s.resync = false }; return s.resync ? s.resyncsAsked : nil }
            if let resync {
                reread()
                resyncsDone.store(resync, ordering: .sequentiallyConsistent)
            }
            let (due, answers) = state.withLock { s in
                defer { s.due = []; s.answers = [] }
                return (s.due, s.answers)
            }
            for id in due.sorted() { deliver(agentID: id) }
            for id in answers.sorted() { collect(requestID: id) }
        }
    }

    /// Claims the agent's requests for its poll parked here, if it is.
    private func deliver(agentID: Int64) {
        guard let parked = broker.takePoll(agentID: agentID) else { return }
        let node = nodeID
        let now = clock()
        do {
            let claimed = try database.write { c in try CheckRequests.claim(c, agentID: agentID, node: node, now: now) }
            if claimed.isEmpty {
                broker.repark(agentID: agentID, parked)
            } else {
                parked.respond(claimed.map { CheckRequest(id: $0.id, monitorID: $0.monitorID, agentID: $0.agentID) })
            }
        } catch {
            broker.repark(agentID: agentID, parked)
            Log.shared.warn("could not claim check requests", ["agent_id": "\(agentID)", "error": "\(error)"])
        }
    }

    /// Hands an answer stored by another hub to the check-now waiting here.
    private func collect(requestID: String) {
        guard let wait = broker.wait(for: requestID),
              let request = wait.requests.first(where: { $0.id == requestID }) else { return }
        do {
            guard let (agentID, a) = try database.read({ c in try CheckRequests.answerOf(c, id: requestID) }),
                  agentID == request.agentID, let name = roster.agent(id: agentID)?.name else { return }
            let result = CheckResult(at: a.atMs / 1000, location: name, outcome: CheckOutcome(rawValue: a.status) ?? .down,
                                     latencyMs: a.latencyMs.map { Int($0) }, statusCode: a.statusCode.map { Int($0) },
                                     error: a.error, certNotAfter: a.certNotAfter, atMs: a.atMs, packetLoss: a.packetLoss)
            _ = wait.answer(agentID: agentID, result)
        } catch {
            Log.shared.warn("could not read a check answer", ["request_id": requestID, "error": "\(error)"])
        }
    }

    /// The resync: every agent with unclaimed requests is hinted again, and
    /// every answer this hub still waits for is looked up.
    private func reread() {
        do {
            let now = clock()
            let open = try database.read { c in try CheckRequests.openAgents(c, now: now) }
            let waited = broker.waits.flatMap { $0.unanswered.map(\.id) }
            state.withLock { s in
                s.hinted = s.hinted.filter { $0.value > now }
                for id in open {
                    s.hinted[id] = max(s.hinted[id] ?? 0, now + Self.hintMillis)
                    s.due.insert(id)
                }
                s.answers.formUnion(waited)
            }
        } catch {
            Log.shared.warn("could not re-read check requests", ["error": "\(error)"])
        }
    }
}
