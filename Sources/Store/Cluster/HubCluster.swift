import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// This hub's place among the hubs sharing one database (SPEC §14).
///
/// Every `beatMillis` it renews its `hub_nodes` row, takes or renews the
/// `leader` lease, and reads which hubs are live (seen within
/// `liveMillis`). From that, `owns(_:)` says whether this hub runs a
/// monitor's hub-location checks (rendezvous hashing over the live hubs)
/// and `isLeader` whether it runs the jobs done once for all (retention,
/// reminders, agent liveness, releasing a dead hub's claims).
///
/// A hub that is killed simply stops renewing: within `liveMillis` (12 s)
/// plus one beat the others no longer count it, take over its monitors
/// and, once its lease has run out, its jobs. Nothing is held across a
/// job: the lease is a row with an expiry, not a session-bound lock.
///
/// On SQLite (`shared == false`) there is one hub per file (a file lock
/// sees to it): it owns everything, leads always, and runs no thread.
public final class HubCluster: Sendable {
    public let nodeID: String
    public let isShared: Bool
    public static let beatMillis: Int64 = 3_000
    public static let liveMillis: Int64 = 12_000
    /// The shortest time between two beats when woken early.
    static let minGapNanos: UInt64 = 200_000_000
    static let leaderLease = "leader"

    private struct View {
        var live: [String]
        var leader: Bool
    }

    private let database: Database?
    private let version: String
    private let startedAt: Int64
    private let view: Mutex<View>
    private let stopping = Atomic<Bool>(false)
    private let wake = Semaphore()
    /// A beat was asked for (`beatSoon`) and has not run yet: many asks
    /// while one is pending make one beat.
    private let beatAsked = Atomic<Bool>(false)
    private let thread = Mutex<ThreadHandle?>(nil)
    private let clock: @Sendable () -> Int64

    /// One hub alone on its database.
    public static func standalone(nodeID: String = "hub") -> HubCluster { HubCluster(nodeID: nodeID) }

    private init(nodeID: String) {
        self.nodeID = nodeID
        isShared = false
        database = nil
        version = ""
        startedAt = 0
        clock = { Time.nowMillis() }
        view = Mutex(View(live: [nodeID], leader: true))
    }

    /// A hub on a database that other hubs may share. `clock`: Unix
    /// milliseconds (hubs' clocks must agree to within a few seconds: run NTP).
    public init(database: Database, nodeID: String, version: String, clock: @escaping @Sendable () -> Int64 = { Time.nowMillis() }) {
        self.database = database
        self.nodeID = nodeID
        self.version = version
        self.clock = clock
        isShared = true
        startedAt = clock()
        // Until the first beat: alone and not leading, so nothing runs twice
        // while the others are not known yet.
        view = Mutex(View(live: [nodeID], leader: false))
    }

    /// Whether this hub runs the monitor's hub-location checks.
    public func owns(_ monitorID: Int64) -> Bool {
        guard isShared else { return true }
        return Rendezvous.owner(of: monitorID, among: view.withLock { $0.live }) == nodeID
    }

    public var isLeader: Bool { view.withLock { $0.leader } }

    public var liveNodes: [String] { view.withLock { $0.live } }

    /// Hubs seen at or after this time (Unix ms) count as live.
    public var liveSince: Int64 { clock() - Self.liveMillis }

    /// Joins: one beat now (so `owns` is right before the first check), then
    /// one every `beatMillis` on a thread of its own. `onTick(changed)` runs
    /// after each beat on that thread; `changed` when the live hubs or the
    /// leadership changed.
    public func start(onTick: @escaping @Sendable (_ changed: Bool) -> Void) throws {
        guard isShared else { return }
        _ = try beat()
        let handle = startThread(name: "cluster") { [self] in
            var last = Time.monotonicNanos()
            while !stopping.load(ordering: .sequentiallyConsistent) {
                _ = wake.wait(timeoutNanos: UInt64(Self.beatMillis) * 1_000_000)
                // Woken early (`beatSoon`): a burst of changes through another
                // hub (an import) makes at most one beat per gap, not one each.
                let since = Time.monotonicNanos() &- last
                if since < Self.minGapNanos { usleep(UInt32((Self.minGapNanos - since) / 1_000)) }
                if stopping.load(ordering: .sequentiallyConsistent) { break }
                beatAsked.store(false, ordering: .sequentiallyConsistent)
                last = Time.monotonicNanos()
                do {
                    onTick(try beat())
                } catch {
                    // The database is unreachable: stop leading (another hub may
                    // be able to), keep owning what we own until we hear otherwise.
                    view.withLock { $0.leader = false }
                    Log.shared.warn("cluster beat failed", ["node": nodeID, "error": "\(error)"])
                }
            }
        }
        thread.withLock { $0 = handle }
    }

    /// Beats now instead of at the next period: another hub announced a
    /// change through the wake-up channel, and `onTick` is where this hub
    /// re-reads monitors and agents. Returns at once.
    public func beatSoon() {
        guard isShared, !beatAsked.exchange(true, ordering: .sequentiallyConsistent) else { return }
        wake.post()
    }

    /// Renews this hub's row and the lease; returns whether the view changed.
    @discardableResult
    func beat() throws -> Bool {
        guard let database else { return false }
        let now = clock()
        let (live, leader) = try database.write { c in
            try HubNodes.beat(c, id: nodeID, startedAt: startedAt, now: now, version: version)
            let leader = try Leases.acquire(c, name: Self.leaderLease, holder: nodeID, now: now, until: now + Self.liveMillis)
            if leader {
                try HubNodes.prune(c, before: now - 86_400_000)
                try MonitorChanges.prune(c, before: now - MonitorChanges.keepMillis)
            }
            return (try HubNodes.live(c, since: now - Self.liveMillis), leader)
        }
        return view.withLock { v in
            let changed = v.live != live || v.leader != leader
            if changed {
                Log.shared.info("cluster view", ["node": nodeID, "live": live.joined(separator: ","), "leader": "\(leader)"])
            }
            v = View(live: live.contains(nodeID) ? live : (live + [nodeID]).sorted(), leader: leader)
            return changed
        }
    }

    /// Leaves cleanly: the row and the lease go, so the others take over at
    /// their next beat instead of after the liveness window.
    public func stop() {
        guard isShared else { return }
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake.post()
        let handle = thread.withLock { h in let copy = h; h = nil; return copy }
        handle?.join()
        do {
            try database?.write { c in
                try HubNodes.remove(c, id: nodeID)
                try Leases.release(c, name: Self.leaderLease, holder: nodeID)
            }
        } catch {
            Log.shared.warn("could not leave the cluster cleanly", ["node": nodeID, "error": "\(error)"])
        }
        view.withLock { $0 = View(live: [nodeID], leader: false) }
    }
}
