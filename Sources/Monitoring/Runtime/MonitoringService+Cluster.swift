import Core
import Store

/// What a hub sharing its database with others keeps in step (SPEC §14).
struct ClusterState: Sendable {
    /// `updated_at` and `paused` of every monitor as this hub last loaded it.
    var versions: [Int64: Monitors.Version] = [:]
    /// The newest heartbeat ping this hub has looked at (nil: not yet).
    var lastPingID: Int64?
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

    /// Applies monitor changes made by other hubs. This hub's own changes
    /// are applied when it makes them; seeing them again here re-applies the
    /// same configuration, which leaves the schedule as it is.
    func refreshFromDatabase() throws {
        let versions = try database.read { try Monitors.versions($0) }
        let known = clusterState.withLock { $0.versions }
        let changed = versions.compactMap { id, v in known[id] == v ? nil : id }
        let gone = known.keys.filter { versions[$0] == nil }
        var remote = 0
        if !changed.isEmpty {
            let records = try database.read { c in try changed.compactMap { id throws(StoreError) in try Monitors.find(c, id: id) } }
            for record in records {
                // This hub's own changes are already applied: only the version is new.
                if registry.get(record.id)?.config == (try MonitorConfig(record: record)) { continue }
                remote += 1
                try load(record)
            }
        }
        if remote > 0 || !gone.isEmpty {
            Log.shared.info("monitors changed through another hub", ["node": cluster.nodeID, "changed": "\(remote)",
                                                                      "deleted": "\(gone.count)"])
        }
        for id in gone {
            registry.remove(id)
            scheduler.remove(id: id)
            heartbeats.remove(id)
        }
        clusterState.withLock { $0.versions = versions }
        // Agents parked on this hub learn of it now, not at their poll's end.
        if remote > 0 || !gone.isEmpty { agents.assignmentsChanged() }
    }

    /// Heartbeats this hub owns that another hub received pings for: judged
    /// again now, so a `start` ping's shorter deadline or a success after
    /// an outage counts within a beat, wherever the ping arrived.
    func judgePingsTakenElsewhere() throws {
        guard let after = clusterState.withLock({ $0.lastPingID }) else {
            // First beat: start from now (start-up judged every heartbeat).
            let newest = try database.read { c in try Heartbeats.newestPingID(c) }
            clusterState.withLock { $0.lastPingID = newest }
            return
        }
        let (monitors, last) = try database.read { c in try Heartbeats.pingedSince(c, afterID: after) }
        clusterState.withLock { $0.lastPingID = last }
        for id in monitors where cluster.owns(id) {
            if let entry = registry.get(id), !entry.config.paused { heartbeats.setDeadline(id, Time.now()) }
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
