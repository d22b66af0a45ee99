import Core
import Crypto
import Store

extension AgentService {
    /// Results further in the future than this are ignored (a wrong clock).
    static let maxFutureMs: Int64 = 5 * 60_000
    /// Results older than this are ignored: a day of buffering is plenty, and
    /// the state machine ignores anything older than the location's last
    /// result anyway.
    static let maxAgeMs: Int64 = 86_400_000

    /// Whether the monitor runs at this agent: not paused, not a heartbeat
    /// (those are received by the hub), and `locations` empty or naming it.
    static func isAssigned(_ config: MonitorConfig, to name: String) -> Bool {
        !config.paused && config.type != .heartbeat && (config.locations.isEmpty || config.locations.contains(name))
    }

    func assigned(to name: String) -> [(Int64, MonitorConfig)] {
        registry.all().filter { Self.isAssigned($0.1.config, to: name) }.map { ($0.0, $0.1.config) }.sorted { $0.0 < $1.0 }
    }

    /// `GET /api/agent/monitors`: the body and its strong ETag. The monitors
    /// carry their configuration only (no status, no last check), so the
    /// bytes, and the ETag, change exactly when the assignment does.
    public func monitorsDocument(for agent: AgentRoster.Agent) -> (body: [UInt8], etag: String) {
        let monitors: [JSON] = assigned(to: agent.name).map { id, config in
            var o = JSONObject([("id", .int(id))])
            if case .object(let c) = config.json() { for (k, v) in c.entries { o[k] = v } }
            return .object(o)
        }
        let body = JSON.object(JSONObject([
            ("agent", .object(JSONObject([("id", .int(agent.id)), ("name", .string(agent.name))]))),
            ("poll_interval", .int(pollInterval)),
            ("monitors", .array(monitors)),
        ])).serialized()
        return (body, "\"" + String(Hex.encode(SHA256.hash(body)).prefix(32)) + "\"")
    }

    /// `GET /api/agent/poll`: `respond` gets the check requests (maybe none)
    /// once there are some or `waitSeconds` passed. Never blocks.
    public func poll(_ agent: AgentRoster.Agent, waitSeconds: Int64, respond: @escaping @Sendable ([CheckRequest]) -> Void) {
        let wait = draining.load(ordering: .sequentiallyConsistent) ? 0 : waitSeconds
        broker.poll(agentID: agent.id, deadlineMs: clock() + wait * 1000, respond: respond)
        // Hubs sharing a database: a request for this agent may be waiting
        // in the database; the relay claims it for this poll (even a `wait=0`
        // one, answered at the watcher's next tick when there is none).
        let hinted = relay?.pollParked(agentID: agent.id) ?? false
        if wait == 0 && !hinted { broker.expire(nowMs: clock()) }
    }

    /// Records an upload through the same path as the hub's own checks
    /// (state machine, incidents, events), in one transaction. Returns the
    /// accepted and ignored counts; a result already stored (same monitor,
    /// location and millisecond) is ignored, so a retried upload stores
    /// nothing twice. Results answering a check-now are handed to it after
    /// the commit, so the check-now answer shows the recorded monitor.
    public func ingest(_ results: [UploadedResult], from agent: AgentRoster.Agent) throws -> (accepted: Int, ignored: Int) {
        let now = clock()
        let name = agent.name
        var work: [(UploadedResult, MonitorConfig)] = []
        for r in results {
            guard let config = registry.get(r.monitorID)?.config, Self.isAssigned(config, to: name),
                  r.atMs <= now + Self.maxFutureMs, r.atMs >= now - Self.maxAgeMs else { continue }
            work.append((r, config))
        }
        let recorder = self.recorder
        // Put by the last run of the closure (a failed batch is redone): read after `perform`.
        let counts = Handoff<(stored: Int, answered: [Int])>()
        let items = work
        let relay = self.relay
        let agentID = agent.id
        try writer.perform { c in
            var stored: [Int] = []
            var answered: [Int] = []
            for (i, (r, config)) in items.enumerated() {
                if try CheckResults.exists(c, monitorID: r.monitorID, location: name, atMs: r.atMs) {
                    answered.append(i)
                    continue
                }
                try recorder.apply(.result(Self.checkResult(r, location: name)), monitorID: r.monitorID, on: c,
                                   config: config, returning: false)
                stored.append(i)
                answered.append(i)
            }
            // Answers to check-nows another hub may be waiting for.
            try relay?.recordAnswers(c, answered.map { items[$0].0 }, agentID: agentID)
            counts.put((stored.count, answered))
        }
        let (storedCount, answered) = counts.take() ?? (0, [])
        for i in answered {
            let r = items[i].0
            if let id = r.requestID {
                broker.answer(requestID: id, agentID: agent.id, monitorID: r.monitorID, Self.checkResult(r, location: name))
            }
        }
        return (storedCount, results.count - storedCount)
    }

    static func checkResult(_ r: UploadedResult, location: String) -> CheckResult {
        CheckResult(at: r.atMs / 1000, location: location, outcome: r.outcome, latencyMs: r.latencyMs, statusCode: r.statusCode,
                    error: r.error, certNotAfter: r.certNotAfter, atMs: r.atMs, packetLoss: r.packetLoss)
    }

    /// Check-now: asks every online agent of the monitor through its poll
    /// (wherever it is parked, when hubs share a database). Returns the wait
    /// (nil when no agent is asked) and the names asked.
    func ask(monitorID: Int64, config: MonitorConfig, waitMs: Int64) throws -> (CheckNowWait?, [Int64: String]) {
        guard config.type != .heartbeat, !config.paused else { return (nil, [:]) }
        let online = roster.all().filter { $0.status == .online && $0.name != hubLocation && Self.isAssigned(config, to: $0.name) }
        guard !online.isEmpty else { return (nil, [:]) }
        let names = Dictionary(uniqueKeysWithValues: online.map { ($0.id, $0.name) })
        let ids = online.map(\.id)
        let wait = try relay?.ask(monitorID: monitorID, agentIDs: ids, waitMs: waitMs) ?? broker.ask(monitorID: monitorID, agentIDs: ids)
        return (wait, names)
    }

    func withdraw(_ wait: CheckNowWait) {
        if let relay { relay.withdraw(wait) } else { broker.withdraw(wait) }
    }
}
