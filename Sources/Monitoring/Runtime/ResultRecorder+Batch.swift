import Core
import Store

extension ResultRecorder {
    /// One scheduled check's result, waiting in the batch writer.
    public struct Recorded: Sendable {
        public var monitorID: Int64
        public var result: CheckResult
        public var config: MonitorConfig
        public init(monitorID: Int64, result: CheckResult, config: MonitorConfig) {
            (self.monitorID, self.result, self.config) = (monitorID, result, config)
        }
    }

    /// Applies a group of results in arrival order, with the effect of
    /// calling `apply` for each in turn, for a handful of statements in all
    /// instead of three per result (`ResultWrites`): at 500,000 monitors on
    /// PostgreSQL the per-result statements, each a round trip and a
    /// parse-bind-execute on the server, were most of the cost of a check.
    ///
    /// The monitors' rows are read and locked once. A quiet result only
    /// queues its row and the monitor's new state: one whose only effect is
    /// the status itself (a steady monitor's check; a new monitor's first
    /// result, pending → up, which alerts nobody) — `apply` would write
    /// nothing else for it. Any other result, and every result of a monitor
    /// in a dependency, goes through `apply` after the queued ones are
    /// written, so it sees exactly what it would have seen one by one
    /// (including `check_results` ids in arrival order, which dependencies
    /// compare).
    public func applyMany(_ group: [Recorded], on c: Connection) throws {
        if group.count == 1, let one = group.first {
            try apply(.result(one.result), monitorID: one.monitorID, on: c, config: one.config, returning: false)
            return
        }
        var rows = try ResultWrites.statesForUpdate(c, ids: group.map(\.monitorID))
        var pending = Quiet()
        for item in group {
            let id = item.monitorID
            guard let row = rows[id] else { continue }   // deleted meanwhile: `apply` skips it too
            if let quiet = quietStep(item, row: row) {
                pending.results.append(quiet.result)
                pending.update(quiet.update)
                rows[id]?.state = quiet.update.state
                rows[id]?.lastAt = quiet.update.last.at
                if let status = quiet.update.status {
                    rows[id]?.status = status.name
                    rows[id]?.statusSince = status.since
                }
            } else {
                try pending.write(on: c)
                try apply(.result(item.result), monitorID: id, on: c, config: item.config, returning: false)
                rows[id] = try Monitors.stateForUpdate(c, id: id)
            }
        }
        try pending.write(on: c)
    }

    /// What a quiet result writes; nil when it needs `apply`.
    private func quietStep(_ item: Recorded, row: Monitors.StateRow)
        -> (result: CheckResultRecord, update: ResultWrites.LastUpdate)? {
        // Dependencies settle holds after every result of a parent or child;
        // a paused monitor's result is `apply`'s to ignore.
        guard !row.hasParents, !row.hasChildren, !row.paused else { return nil }
        let r = item.result
        let status = Self.resultStatus(r, degradedAfterMs: item.config.degradedAfterMs)
        guard let last = Self.lastCheck(r, status: status, after: row.lastAt) else { return nil }
        let inMaintenance = calendar.isInMaintenance(monitorID: item.monitorID, at: r.at)
        let state = MonitorStateCoding.decode(row.state, status: MonitorStatus(rawValue: row.status) ?? .pending,
                                              since: row.statusSince)
        let (next, effects) = StateMachine.apply(.result(r), to: state, policy: policy(item.config),
                                                 inMaintenance: inMaintenance)
        // `apply` writes nothing for `statusChanged` but the new status
        // columns; any other effect is an incident, a timeline entry or an
        // event, and goes through it.
        guard effects.allSatisfy({ if case .statusChanged = $0 { true } else { false } }) else { return nil }
        var update = ResultWrites.LastUpdate(id: item.monitorID, state: MonitorStateCoding.encode(next), last: last)
        if next.status.rawValue != row.status || next.statusSince != row.statusSince {
            update.status = (next.status.rawValue, next.statusSince)
        }
        return (Self.row(r, monitorID: item.monitorID, status: status, inMaintenance: inMaintenance), update)
    }

    /// Quiet results not written yet: their rows in arrival order, and the
    /// newest state of each monitor (one update per monitor).
    private struct Quiet {
        var results: [CheckResultRecord] = []
        var updates: [ResultWrites.LastUpdate] = []
        var position: [Int64: Int] = [:]

        mutating func update(_ u: ResultWrites.LastUpdate) {
            if let i = position[u.id] {
                // A status set earlier in the group is still the status
                // (a later quiet step that changed none left it).
                var merged = u
                merged.status = u.status ?? updates[i].status
                updates[i] = merged
            } else {
                position[u.id] = updates.count
                updates.append(u)
            }
        }

        mutating func write(on c: Connection) throws {
            try ResultWrites.insert(c, results)
            try ResultWrites.update(c, updates)
            results.removeAll(keepingCapacity: true)
            updates.removeAll(keepingCapacity: true)
            position.removeAll(keepingCapacity: true)
        }
    }
}
