import Core
import Crypto
import Store

/// A refused operation: the API maps these to 404 / 409.
public enum MonitoringError: Error, Equatable {
    case notFound(String)
    case conflict(code: String, message: String)
    /// A conflict caused by one field of the body (a taken slug): `409` naming it.
    case fieldConflict(field: String, code: String, message: String)
}

extension MonitoringService {
    /// The row a new monitor is stored as.
    static func newRecord(_ config: MonitorConfig) -> MonitorRecord {
        var record = MonitorRecord(name: config.name, type: config.type.rawValue, target: config.target,
                                   interval: config.interval, timeout: config.timeout, retries: config.retries)
        config.write(into: &record)
        record.status = config.paused ? "paused" : "pending"
        if config.type == .heartbeat {
            // 24 random bytes: unguessable, since a ping URL needs no token.
            record.pingKey = Base64URL.encode(SecureRandom.bytes(24))
        }
        return record
    }

    /// The part of a create inside its transaction `c`, shared by the single
    /// and the bulk create: the checks, the row, its dependency edges and
    /// the word to the other hubs. `item` is the monitor's index in a bulk
    /// create; a check's error then names it (`monitors[3].depends_on`).
    func insertNew(_ config: MonitorConfig, _ record: MonitorRecord, item: Int? = nil, on c: Connection) throws -> MonitorRecord {
        do {
            try Self.checkPolicy(config, on: c)
            try Self.checkDependencies(config, monitorID: nil, on: c)
        } catch let error as JSONFieldError {
            guard let item else { throw error }
            try BulkCreate.item(item) { () throws(JSONFieldError) in throw error }
        }
        let stored = try Monitors.insert(c, record, now: Time.now())
        if let parents = config.dependsOn { try Dependencies.replace(c, monitorID: stored.id, parents: parents) }
        try Self.announceChange(c, monitorID: stored.id, cluster: cluster, wake: wake)
        return stored
    }

    /// The part of a create after its commit, so nothing is scheduled that a
    /// rolled-back transaction never stored: into the registry, then the
    /// schedule. The caller tells the agents afterwards (once for a bulk create).
    func registerNew(_ stored: MonitorRecord, _ config: MonitorConfig) {
        registry.set(stored.id, .init(config: config.cached, createdAt: stored.createdAt, pingKey: stored.pingKey))
        activate(stored.id, config)
    }

    public func create(_ config: MonitorConfig) throws -> MonitorRecord {
        let record = Self.newRecord(config)
        let stored = try database.write { c in try insertNew(config, record, on: c) }
        registerNew(stored, config)
        agents.assignmentsChanged()
        // Its tags may put it in a window that names them.
        if !config.tags.isEmpty { try calendar.reload() }
        if !config.paused && config.type != .heartbeat { _ = scheduler.runNow(id: stored.id) }
        return stored
    }

    public func update(id: Int64, _ config: MonitorConfig) throws -> MonitorRecord {
        let before = try find(id)
        var record = before
        config.write(into: &record)
        let (wake, cluster) = (self.wake, self.cluster)
        guard let stored = try database.write({ c -> MonitorRecord? in
            try Self.checkPolicy(config, on: c)
            try Self.checkDependencies(config, monitorID: id, on: c)
            guard let stored = try Monitors.updateConfig(c, record, now: Time.now()) else { return nil }
            if let parents = config.dependsOn { try Dependencies.replace(c, monitorID: id, parents: parents) }
            try Self.announceChange(c, monitorID: id, cluster: cluster, wake: wake)
            return stored
        }) else {
            throw MonitoringError.notFound("No monitor with id \(id).")
        }
        registry.set(id, .init(config: config.cached, createdAt: stored.createdAt, pingKey: stored.pingKey))
        agents.assignmentsChanged()
        if config.tags != before.tags { try calendar.reload() }
        // `paused` goes through pause/resume so incidents close and state resets.
        if config.paused != before.paused {
            return config.paused ? try pause(id: id) : try resume(id: id)
        }
        activate(id, config)
        return stored
    }

    /// The escalation policy a monitor names must exist (`400` naming the
    /// field); checked in the transaction that writes the monitor, where the
    /// foreign key would otherwise refuse it with a less helpful error.
    static func checkPolicy(_ config: MonitorConfig, on c: Connection) throws {
        guard let id = config.escalationPolicyID else { return }
        if try EscalationPolicies.find(c, id: id) == nil {
            throw JSONFieldError(field: "escalation_policy_id", message: "No escalation policy with id \(id).")
        }
    }

    /// `depends_on` names existing monitors and makes no cycle (`400` naming
    /// the field), judged against the edges as this transaction sees them.
    static func checkDependencies(_ config: MonitorConfig, monitorID: Int64?, on c: Connection) throws {
        guard let parents = config.dependsOn, !parents.isEmpty else { return }
        try Dependencies.lockGraph(c)
        var existing = Set<Int64>()
        for p in parents where try Monitors.find(c, id: p) != nil { existing.insert(p) }
        try DependencyGraph.check(monitorID: monitorID, parents: parents, existing: existing, edges: try Dependencies.all(c))
    }

    /// The parents of every monitor that has some (one read of the edges,
    /// for lists of monitors).
    public func dependencyMap() throws -> [Int64: [Int64]] {
        var out: [Int64: [Int64]] = [:]
        for e in try database.read({ c in try Dependencies.all(c) }) { out[e.child, default: []].append(e.parent) }
        return out
    }

    public func delete(id: Int64) throws {
        let (wake, cluster) = (self.wake, self.cluster)
        let holds = recorder.holds
        let gone = try database.write { c in
            // Its children's incidents that wait for it or that it suppressed
            // are decided again without it, so none stays silenced by a
            // monitor that no longer exists.
            let waiting = try Dependencies.childIncidents(c, parentID: id)
            guard try Monitors.delete(c, id: id) else { return false }
            try holds.parentRemoved(id, incidents: waiting, at: Time.now(), on: c)
            try Self.announceChange(c, monitorID: id, cluster: cluster, wake: wake)
            return true
        }
        guard gone else { throw MonitoringError.notFound("No monitor with id \(id).") }
        forget(id)
        agents.assignmentsChanged()
    }

    public func find(_ id: Int64) throws -> MonitorRecord {
        guard let record = try database.read({ try Monitors.find($0, id: id) }) else {
            throw MonitoringError.notFound("No monitor with id \(id).")
        }
        return record
    }

    public func config(_ id: Int64) throws -> MonitorConfig {
        if let entry = registry.get(id) { return entry.config }
        return try MonitorConfig(record: try find(id))
    }

    public func pause(id: Int64) throws -> MonitorRecord {
        try setPaused(id, true, input: .pause(at: Time.now()))
    }

    public func resume(id: Int64) throws -> MonitorRecord {
        try setPaused(id, false, input: .resume(at: Time.now()))
    }

    /// Records the pause or resume (incidents close, state resets), then
    /// updates the registry and the schedule; a resumed monitor is checked at once.
    private func setPaused(_ id: Int64, _ paused: Bool, input: MonitorInput) throws -> MonitorRecord {
        let record = try apply(input, to: id)
        if var entry = registry.get(id) {
            entry.config.paused = paused
            registry.set(id, entry)
            agents.assignmentsChanged()
            activate(id, entry.config)
            if !paused && entry.config.type != .heartbeat { _ = scheduler.runNow(id: id) }
        }
        return record
    }

    /// What `POST /api/monitors/{id}/check` answers.
    public struct CheckNowOutcome: Sendable {
        public var record: MonitorRecord
        /// The hub's result (if it is a location) and each agent's that answered.
        public var results: [CheckResult]
        /// Agents asked that did not answer in time (their requests are withdrawn).
        public var missingLocations: [String]
    }

    /// How long a check-now waits for the agents.
    public static let checkNowAgentWaitMs: Int64 = 15_000

    /// Runs the monitor's check now at every one of its online locations:
    /// the agents are asked first (through their long polls) so they work
    /// while the hub checks; then waits for their answers until `waitMs`
    /// after the start. Agent results are recorded by their upload; the
    /// hub's here. Returns the stored monitor afterwards.
    public func checkNow(id: Int64, waitMs: Int64 = MonitoringService.checkNowAgentWaitMs) throws -> CheckNowOutcome {
        let config = try self.config(id)
        let deadline = Time.monotonicNanos() + UInt64(max(0, waitMs)) * 1_000_000
        let (wait, asked) = try agents.ask(monitorID: id, config: config, waitMs: waitMs)
        // Unanswered requests are withdrawn however this ends (a failed hub
        // check included), so no agent runs a check nobody waits for.
        defer { if let wait { agents.withdraw(wait) } }
        var results: [CheckResult] = []
        if config.type == .heartbeat {
            // A heartbeat's "check" is judging its pings as of now.
            _ = judgeHeartbeat(id, now: Time.now())
        } else if atHubLocation(config) {
            // Whichever hub the request reached checks now, owner or not.
            let result = executor.run(config)
            checksRun.add(1)
            let recorder = self.recorder
            try writer.perform { c in try recorder.apply(.result(result), monitorID: id, on: c, config: config, returning: false) }
            results.append(result)
        }
        var missing: [String] = []
        if let wait {
            let answers = wait.wait(untilNanos: deadline)
            for (agentID, name) in asked.sorted(by: { $0.value < $1.value }) {
                if let r = answers[agentID] { results.append(r) } else { missing.append(name) }
            }
        }
        return CheckNowOutcome(record: try find(id), results: results, missingLocations: missing)
    }

    /// Records a heartbeat ping. `completion(true)` once the ping, its result
    /// and any incident change are committed together; `false` when no
    /// monitor has that key. Holds no thread while the commit is pending
    /// (pings are the hub's highest-rate write); the completion runs on the
    /// writer thread and must not block.
    public func ping(key: String, _ ping: HeartbeatPing, body: [UInt8], client: String?, userAgent: String? = nil,
                     completion: @escaping @Sendable (Result<Bool, any Error>) -> Void) {
        guard let id = registry.id(forPingKey: key) ?? learnedFromDatabase(pingKey: key), let entry = registry.get(id) else {
            return completion(.success(false))
        }
        let nowMs = Time.nowMillis()
        let at = nowMs / 1000
        let kind: String
        var exitCode: Int64?
        var result: CheckResult?
        switch ping {
        case .success:
            kind = "success"
            result = CheckResult(at: at, location: settings.location, outcome: .up)
        case .start:
            kind = "start"
        case .exit(0):
            kind = "success"
            exitCode = 0
            result = CheckResult(at: at, location: settings.location, outcome: .up)
        case .exit(let code):
            kind = "fail"
            exitCode = Int64(code)
            result = CheckResult(at: at, location: settings.location, outcome: .down, error: "exit code \(code)")
        case .failure(let code):
            kind = "fail"
            exitCode = code.map(Int64.init)
            result = CheckResult(at: at, location: settings.location, outcome: .down,
                                 error: code.map { "exit code \($0)" } ?? "failure ping")
        }
        let heartbeats = self.heartbeats
        let cluster = self.cluster
        let paused = entry.config.paused
        let row = Heartbeats.NewPing(monitorID: id, atMs: nowMs, kind: kind, exitCode: exitCode, body: body, client: client,
                                      userAgent: userAgent)
        let pingKind = kind
        pingIngest.add(PingIngest.Ping(row: row, result: paused ? nil : result, config: entry.boxed, completion: { error in
            if let error { return completion(.failure(error)) }
            // Only the hub that judges the heartbeat (its owner, when hubs
            // share a database) watches it; the owner learns of a ping taken
            // here at its next beat (`MonitoringService.clusterTick`).
            if !paused && cluster.owns(id) {
                // A failure ping already recorded the down verdict: nothing to
                // judge until the next ping. Otherwise the watcher re-judges from
                // the stored pings within a second and learns the new deadline.
                heartbeats.setDeadline(id, pingKind == "fail" ? nil : at)
            }
            completion(.success(true))
        }))
    }

    /// A key this hub does not know yet, when hubs share a database: the
    /// monitor may have been created through another hub since this one's
    /// last beat (one indexed read; alone on SQLite every monitor is known).
    private func learnedFromDatabase(pingKey key: String) -> Int64? {
        guard cluster.isShared,
              let record = try? database.read({ c in try Monitors.find(c, pingKey: key) }),
              (try? load(record)) != nil else { return nil }
        return record.id
    }

    /// The ping URL shown on heartbeat monitors.
    public func pingURL(_ record: MonitorRecord) -> String? {
        record.pingKey.map { "\(settings.publicURL)/ping/\($0)" }
    }

    /// A pause or resume. Other hubs are told in the same transaction (a
    /// paused monitor is no longer assigned to agents).
    func apply(_ input: MonitorInput, to id: Int64) throws -> MonitorRecord {
        let (recorder, wake, cluster) = (self.recorder, self.wake, self.cluster)
        // Through the batch writer, so the change is ordered after the
        // results queued before it; the record comes back out of its closure.
        let applied = Handoff<MonitorRecord>()
        try writer.perform { c in
            guard let record = try recorder.apply(input, monitorID: id, on: c) else { return }
            try Self.announceChange(c, monitorID: id, cluster: cluster, wake: wake)
            applied.put(record)
        }
        guard let record = applied.take() else { throw MonitoringError.notFound("No monitor with id \(id).") }
        return record
    }
}
