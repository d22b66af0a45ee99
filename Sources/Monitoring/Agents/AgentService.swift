#if canImport(Glibc)
import Glibc
#endif
import Core
import Store
import Synchronization

/// Remote agents (docs/agents.md): the admin operations, contact and
/// liveness, and (in AgentService+Protocol) what the agent endpoints do.
/// Liveness lives in the roster; the `agents` table follows it through
/// `syncStatus`, which writes the `agent_offline` / `agent_online` events in
/// the same transaction as the status, through the same EventSink as
/// monitor events.
public final class AgentService: Sendable {
    public let pollInterval: Int64
    let database: Database
    let writer: BatchWriter
    let recorder: ResultRecorder
    let registry: MonitorRegistry
    public let roster: AgentRoster
    let broker: CheckRequestBroker
    /// Hubs sharing a database: check-now requests through `check_requests`
    /// and the wake-up channel (nil alone: they stay in the broker).
    let relay: CheckRequestRelay?
    /// Announces agents created or deleted here to the other hubs.
    let wake: WakeChannel
    /// Unix milliseconds; injected by tests.
    let clock: @Sendable () -> Int64
    private let stopping = Atomic<Bool>(false)
    /// Set by `drain`: polls are answered at once instead of parked.
    let draining = Atomic<Bool>(false)
    private let thread = Mutex<ThreadHandle?>(nil)

    /// An agent is offline after this long without contact: 3 × poll interval.
    public var offlineAfterMs: Int64 { pollInterval * 3000 }

    /// Whether this hub decides that silent agents are offline (the leader,
    /// when hubs share a database: each sees only the polls it answers).
    let leads: @Sendable () -> Bool

    /// `nodeID`: this hub's id when hubs share the database (nil alone).
    init(database: Database, writer: BatchWriter, recorder: ResultRecorder, registry: MonitorRegistry,
         pollInterval: Int64, clock: @escaping @Sendable () -> Int64, leads: @escaping @Sendable () -> Bool = { true },
         nodeID: String? = nil, wake: WakeChannel = .inert) {
        self.leads = leads
        let broker = CheckRequestBroker()
        self.broker = broker
        self.wake = wake
        relay = nodeID.map { CheckRequestRelay(database: database, wake: wake, nodeID: $0, broker: broker, roster: recorder.roster,
                                               clock: clock) }
        self.database = database
        self.writer = writer
        self.recorder = recorder
        self.registry = registry
        self.roster = recorder.roster
        self.pollInterval = max(1, pollInterval)
        self.clock = clock
    }

    var hubLocation: String { recorder.hubLocation }

    /// Loads the agents and starts the liveness watcher. Agents that were
    /// online when the hub stopped get a full timeout from now to call
    /// again: the hub was away, not them.
    func start() throws {
        let records = try database.read { try Agents.all($0) }
        roster.load(records)
        roster.startCountingSilence(nowMs: clock())
        let handle = startThread(name: "agents") { [self] in loop() }
        thread.withLock { $0 = handle }
        relay?.start()
    }

    /// Before the HTTP server stops: answer every parked long poll now (and
    /// any later one at once), so graceful shutdown does not wait out polls.
    public func drain() {
        draining.store(true, ordering: .sequentiallyConsistent)
        broker.closeAll()
    }

    func stop() {
        relay?.stop()
        stopping.store(true, ordering: .sequentiallyConsistent)
        let handle = thread.withLock { h in let copy = h; h = nil; return copy }
        handle?.join()
        broker.closeAll()
    }

    /// Four ticks a second: long polls end within 250 ms of their `wait`,
    /// and an agent goes offline within 250 ms of its timeout.
    private func loop() {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            tick(nowMs: clock())
            var rest = timespec(tv_sec: 0, tv_nsec: 250_000_000)
            nanosleep(&rest, nil)
        }
    }

    /// One pass of the watcher: ends overdue polls and those parked before
    /// an assignment change, marks silent agents offline and records that.
    /// Tests call it with their own clock.
    public func tick(nowMs: Int64) {
        broker.expire(nowMs: nowMs)
        broker.wakeStale()
        guard leads() else { return }
        for agent in roster.sweep(nowMs: nowMs, timeoutMs: offlineAfterMs, connected: broker.connected) {
            Log.shared.warn("agent offline", ["agent": agent.name, "silent_ms": "\(nowMs - (agent.lastSeenMs ?? nowMs))"])
            persist(agentID: agent.id)
        }
    }

    // MARK: admin

    /// 1–32 of `a-z 0-9 -`, starting with a letter or digit.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), bytes[0] != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }

    public func create(name: String, tokenHash: [UInt8]) throws -> AgentRecord {
        guard Self.isValidName(name) else {
            throw JSONFieldError(field: "name", message: "name must be 1-32 characters of a-z, 0-9 and -, starting with a letter or digit.")
        }
        guard name != hubLocation else {
            throw MonitoringError.conflict(code: "name_taken", message: "\(name) is the hub's own location name.")
        }
        let record: AgentRecord
        do {
            record = try database.write { c in
                let r = try Agents.insert(c, name: name, tokenHash: tokenHash, now: Time.now())
                // Another hub must know the token before the agent calls it.
                try wake.send(c, .agents)
                return r
            }
        } catch let e as StoreError where e.isUniqueViolation {
            throw MonitoringError.conflict(code: "name_taken", message: "An agent named \(name) exists already.")
        }
        roster.add(record)
        return record
    }

    /// The stored rows with the roster's fresher liveness.
    public func list(afterID: Int64?, limit: Int) throws -> [AgentRecord] {
        try database.read { try Agents.list($0, afterID: afterID, limit: limit) }.map(current)
    }

    public func find(id: Int64) throws -> AgentRecord {
        guard let r = try database.read({ try Agents.find($0, id: id) }) else {
            throw MonitoringError.notFound("No agent with id \(id).")
        }
        return current(r)
    }

    /// The token stops working at once; its results stay; its location no
    /// longer counts.
    public func delete(id: Int64) throws {
        guard try database.write({ c in
            guard try Agents.delete(c, id: id) else { return false }
            try wake.send(c, .agents)
            return true
        }) else {
            throw MonitoringError.notFound("No agent with id \(id).")
        }
        roster.remove(id: id)
        broker.drop(agentID: id)
    }

    private func current(_ r: AgentRecord) -> AgentRecord {
        guard let a = roster.agent(id: r.id) else { return r }
        var out = r
        out.status = a.status.rawValue
        out.statusSince = a.statusSince
        out.lastSeenAt = a.lastSeenMs.map { $0 / 1000 }
        out.version = a.version
        out.address = a.address
        return out
    }

    // MARK: contact and liveness

    /// Hubs sharing a database, after each beat: agents created or deleted
    /// through another hub, the contacts other hubs answered (written at most
    /// once a poll interval) and the status changes they made, so every hub's
    /// quorum counts the same agents and the leader judges silence on every
    /// hub's polls.
    public func refreshFromDatabase() throws {
        let records = try database.read { try Agents.all($0) }
        roster.merge(records)
        // An agent deleted through another hub: its poll parked here ends.
        broker.dropAll(except: Set(records.map(\.id)))
    }

    /// The monitors changed (this hub's registry already shows it): parked
    /// polls are answered within a tick, so agents fetch their assignment
    /// now instead of at their poll's end.
    func assignmentsChanged() { broker.assignmentsChanged() }

    /// The agent whose token has this hash.
    public func authenticate(tokenHash: [UInt8]) -> AgentRoster.Agent? {
        roster.agent(tokenHash: tokenHash)
    }

    /// Any authenticated request: the agent is seen (and online again).
    @discardableResult
    public func contact(_ agent: AgentRoster.Agent, version: String?, address: String?) -> AgentRoster.Agent {
        guard let c = roster.contact(id: agent.id, nowMs: clock(), version: version, address: address,
                                     persistEveryMs: pollInterval * 1000) else { return agent }
        if c.cameOnline { Log.shared.info("agent online", ["agent": agent.name]) }
        if c.persist { persist(agentID: agent.id) }
        return c.agent
    }

    private func persist(agentID: Int64) {
        let sink = recorder.sink
        let roster = self.roster
        writer.submit { c in try Self.syncStatus(c, agentID: agentID, roster: roster, sink: sink) }
    }

    /// Brings the agent's row up to the roster's view. Idempotent and
    /// order-free: it compares the stored status with the current one, so
    /// two racing transitions write what is true when the write runs.
    /// The event is inserted before the row changes, so the notifier still
    /// reads the old `status_since` (how long it was away) from the row.
    static func syncStatus(_ c: Connection, agentID: Int64, roster: AgentRoster, sink: (any EventSink)?) throws {
        guard let a = roster.agent(id: agentID), let row = try Agents.findForUpdate(c, id: agentID) else { return }
        if let seen = a.lastSeenMs {
            try Agents.touch(c, id: agentID, at: seen / 1000, version: a.version, address: a.address)
        }
        guard row.status != a.status.rawValue else { return }
        var kind: String?
        var cause = ""
        if a.status == .offline {
            kind = EventKind.agentOffline.rawValue
            cause = "no contact since \(Time.rfc3339((a.lastSeenMs ?? 0) / 1000))"
        } else if a.status == .online && row.status == "offline" {
            kind = EventKind.agentOnline.rawValue
        }
        if let kind {
            var event = EventRecord(kind: kind, monitorID: nil, incidentID: nil, at: a.statusSince, cause: cause,
                                    locations: [a.name], suppressed: false)
            event.id = try Events.insert(c, event)
            try sink?.didInsert(event, on: c)
        }
        try Agents.setStatus(c, id: agentID, status: a.status.rawValue, since: a.statusSince)
    }
}
