import Core
import Store

/// What a hub sharing its database with others keeps in step (SPEC §14).
struct ClusterState: Sendable {
    /// Where this hub stands in `monitor_changes`.
    var changes = CommitCursor(after: 0)
    /// When this hub last read the changes (Unix ms; 0: never).
    var changesReadAt: Int64 = 0
    /// Where this hub stands in `heartbeat_pings` (nil: not read yet).
    var pings: CommitCursor?
}

extension MonitoringService {
    /// After each cluster beat. Monitors created, changed, paused or
    /// deleted through another hub are loaded (within one beat, 3 s), and
    /// when the live hubs changed each monitor goes to its new owner: the
    /// monitors of a hub that died are scheduled here if this hub now owns
    /// them, on the same grid (`SchedulePlan.firstDue` depends on the id and
    /// interval only), so the first check after a take-over is not a burst.
    public func clusterTick(changed: Bool) {
        guard cluster.isShared else { return }
        do {
            try refreshFromDatabase()
            if changed { try rebalance() }
            try calendar.reload()
            try agents.refreshFromDatabase()
            try judgePingsTakenElsewhere()
        } catch {
            Log.shared.warn("cluster refresh of monitors failed", ["error": "\(error)"])
        }
        // Whatever a lost wake-up would have said is found here, a beat late.
        agents.relay?.resync()
    }

    /// What another hub announced through the wake-up channel (on the
    /// listener's thread: hands the work on and returns). Monitor and agent
    /// changes are read by a cluster beat run now; check-now traffic goes
    /// to the relay. A resync (the listener reconnected) does both.
    public func wake(_ event: WakeChannel.Event) {
        switch event {
        case .signal(.monitors), .signal(.agents):
            cluster.beatSoon()
        case .signal(.check(let agentID)):
            agents.relay?.hint([agentID])
        case .signal(.answered(let requestID)):
            agents.relay?.answered(requestID: requestID)
        case .resync:
            cluster.beatSoon()
            agents.relay?.resync()
        }
    }

    /// Applies the monitor changes other hubs made since the last beat
    /// (`monitor_changes`, read from this hub's cursor). This hub's own
    /// rows are skipped: it applied them when it made them. A cursor that
    /// overflowed, or a hub that could not read for longer than the log is
    /// kept, reloads every monitor instead.
    func refreshFromDatabase() throws {
        let now = Time.nowMillis()
        let (cursor, readAt) = clusterState.withLock { ($0.changes, $0.changesReadAt) }
        if cursor.overflowed || now - readAt > MonitorChanges.readableGapMillis {
            try reloadAll()
            return
        }
        let changes = try database.read { c in try MonitorChanges.read(c, cursor: cursor, limit: Self.changesPerBeat) }
        var next = cursor
        next.take(changes.map(\.seq), now: now)
        let ids = Set(changes.lazy.filter { [node = cluster.nodeID] in $0.node != node }.map(\.monitorID))
        var applied = (changed: 0, deleted: 0)
        if !ids.isEmpty {
            let records = try database.read { c in
                try ids.map { id throws(StoreError) in (id, try Monitors.find(c, id: id)) }
            }
            for (id, record) in records {
                if let record { applied.changed += try apply(record) ? 1 : 0 } else if registry.get(id) != nil {
                    forget(id)
                    applied.deleted += 1
                }
            }
        }
        clusterState.withLock { s in
            s.changes = next
            s.changesReadAt = now
        }
        announce(applied)
        // A full page: the rest is read at the next beat, a moment later.
        if changes.count >= Self.changesPerBeat { cluster.beatSoon() }
    }

    /// At most this many changes are read per beat (an import of many
    /// monitors through another hub is taken in steps).
    static let changesPerBeat = 5_000

    /// Every monitor again: the start-up load's comparison, for a hub whose
    /// cursor cannot be trusted.
    func reloadAll() throws {
        let now = Time.nowMillis()
        let (cursor, records) = try database.read { c in (try Self.freshCursor(c), try Monitors.all(c)) }
        var applied = (changed: 0, deleted: 0)
        let present = Set(records.map(\.id))
        for record in records { applied.changed += try apply(record) ? 1 : 0 }
        for (id, _) in registry.all() where !present.contains(id) {
            forget(id)
            applied.deleted += 1
        }
        clusterState.withLock { s in
            s.changes = cursor
            s.changesReadAt = now
        }
        Log.shared.info("monitors reloaded", ["node": cluster.nodeID, "monitors": "\(records.count)"])
        announce(applied)
    }

    /// Where a hub that is about to read every monitor starts in the log:
    /// read before the monitors, so nothing changed meanwhile is missed
    /// (seen twice at worst, which `apply` makes harmless), and a little
    /// before the newest row, so a change whose transaction took its seq
    /// earlier but commits later is awaited rather than skipped.
    static func freshCursor(_ c: Connection) throws -> CommitCursor {
        CommitCursor(after: max(0, try MonitorChanges.newest(c) - 1_024))
    }

    /// Loads `record` unless the registry already has its configuration
    /// (seeing a change twice leaves the schedule as it is). Whether it loaded.
    private func apply(_ record: MonitorRecord) throws -> Bool {
        if registry.get(record.id)?.config == (try MonitorConfig(record: record)) { return false }
        try load(record)
        return true
    }

    /// A deleted monitor out of this hub's memory (a delete here or through
    /// another hub). The caller tells the agents, once for all it forgot.
    func forget(_ id: Int64) {
        registry.remove(id)
        closedDaysCache.remove(id)
        scheduler.remove(id: id)
        heartbeats.remove(id)
    }

    private func announce(_ applied: (changed: Int, deleted: Int)) {
        guard applied.changed > 0 || applied.deleted > 0 else { return }
        Log.shared.info("monitors changed through another hub", ["node": cluster.nodeID, "changed": "\(applied.changed)",
                                                                  "deleted": "\(applied.deleted)"])
        // Agents parked on this hub learn of it now, not at their poll's end.
        agents.assignmentsChanged()
    }

    /// Writes the row of `monitor_changes` that tells the other hubs, in the
    /// transaction `c` that makes the change, and wakes them at its commit.
    /// Nothing on SQLite: one hub per file, nobody to tell.
    static func announceChange(_ c: Connection, monitorID: Int64, cluster: HubCluster, wake: WakeChannel) throws {
        guard cluster.isShared else { return }
        try MonitorChanges.record(c, monitorID: monitorID, node: cluster.nodeID, at: Time.nowMillis())
        try wake.send(c, .monitors)
    }

    /// How far before the newest ping a hub's first read starts.
    static let pingLookBack: Int64 = 1_024

    /// Heartbeats this hub owns that another hub received pings for: judged
    /// again now, so a `start` ping's shorter deadline or a success after
    /// an outage counts within a beat, wherever the ping arrived.
    func judgePingsTakenElsewhere() throws {
        guard let cursor = clusterState.withLock({ $0.pings }) else {
            // First beat: start-up judged every heartbeat. Start a little
            // before the newest ping, as for monitor changes, so one with a
            // smaller id still being committed is awaited, not skipped
            // (judging the few monitors pinged since again is harmless).
            let newest = try database.read { c in try Heartbeats.newestPingID(c) }
            clusterState.withLock { $0.pings = CommitCursor(after: max(0, newest - Self.pingLookBack)) }
            return
        }
        let found = try database.read { c in try Heartbeats.pingedSince(c, cursor: cursor) }
        var next = cursor
        next.take(upTo: found.last, holes: found.holes, appeared: found.appeared, now: Time.nowMillis())
        let now = Time.now()
        if next.overflowed {
            // Too many pings not committed yet to await one by one: judge
            // every heartbeat this hub owns, and go on from the newest.
            Log.shared.warn("heartbeat pings committed out of order beyond what is awaited; judging every heartbeat",
                            ["node": cluster.nodeID])
            clusterState.withLock { $0.pings = CommitCursor(after: found.last) }
            for (id, entry) in registry.all() where entry.config.type == .heartbeat && !entry.config.paused && cluster.owns(id) {
                heartbeats.setDeadline(id, now)
            }
            return
        }
        clusterState.withLock { $0.pings = next }
        for id in found.monitors where cluster.owns(id) {
            if let entry = registry.get(id), !entry.config.paused { heartbeats.setDeadline(id, now) }
        }
    }

    /// The live hubs changed: schedule what this hub owns now, drop what it
    /// no longer does.
    func rebalance() throws {
        let dues = try database.read { try Monitors.nextDues($0) }
        var mine = 0
        for (id, entry) in registry.all() {
            activate(id, entry.config, storedNextDue: dues[id])
            if checkedHere(id, entry.config) { mine += 1 }
        }
        Log.shared.info("monitors rebalanced", ["node": cluster.nodeID, "hubs": "\(cluster.liveNodes.count)", "checked_here": "\(mine)"])
    }
}
