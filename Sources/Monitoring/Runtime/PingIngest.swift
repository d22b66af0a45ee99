import Core
import Store
import Synchronization

/// Heartbeat pings, written in groups. Pings are the hub's highest-rate
/// write, and most of them change nothing but "last seen" (a success ping on
/// a heartbeat that is up). Written one by one, each costs five statements;
/// here every ping that arrives while the previous group is being committed
/// joins the next group, and a group costs a handful of statements whatever
/// its size: the ping rows and their result rows in multi-row INSERTs, one
/// upsert of `heartbeat_state` and one "last check" update per monitor, one
/// status read for all. A ping that may change state (a failure, a success
/// on a monitor that is not up) still goes through the `ResultRecorder`, in
/// arrival order, after the quiet pings before it are written.
///
/// On PostgreSQL two groups may run at once on two lanes; pings in flight at
/// the same time are then applied in the order their groups lock the
/// monitor, which is as good an order as any for concurrent requests. A
/// client that waits for each answer before its next ping gets its order.
///
/// A group is one item of the `BatchWriter`: committed with the batch, and
/// each ping's completion runs after that commit, so an acknowledged ping is
/// durable exactly as before. If a group's write fails, its pings are
/// written again one by one (each in its own savepoint), so one bad ping
/// fails alone.
final class PingIngest: Sendable {
    struct Ping: Sendable {
        var row: Heartbeats.NewPing
        /// nil for a start ping (no verdict), or when the monitor is paused.
        var result: CheckResult?
        /// Boxed: a ping is copied several times on its way (queue, group,
        /// completion) and across threads, and each copy of a bare
        /// `MonitorConfig` retains every string and array in it.
        var config: ConfigBox
        var completion: @Sendable ((any Error)?) -> Void
    }

    private struct Queue {
        var pings: [Ping] = []
        /// A group item is queued on a lane and has not taken the pings yet.
        var scheduled = false
        /// Groups queued or running per lane.
        var busy: [Int]
    }

    /// The pings one writer item took, kept for the writer's retry of the
    /// same item and for the completions, and each ping's own error.
    private final class Group: Sendable {
        private let state = Mutex<(pings: [Ping]?, errors: [Int: any Error])>((nil, [:]))
        func take(_ drain: () -> [Ping]) -> [Ping] {
            state.withLock { s in
                if let pings = s.pings { return pings }
                let pings = drain()
                s.pings = pings
                return pings
            }
        }
        var pings: [Ping] { state.withLock { $0.pings ?? [] } }
        func setErrors(_ errors: [Int: any Error]) { state.withLock { $0.errors = errors } }
        func error(at i: Int) -> (any Error)? { state.withLock { $0.errors[i] } }
    }

    private let queue: Mutex<Queue>
    /// One batch writer per write lane (PostgreSQL: their own connections,
    /// so a group can run while the previous one commits), or the hub's
    /// writer alone (SQLite).
    let lanes: [BatchWriter]
    private let ownsLanes: Bool
    private let recorder: ResultRecorder
    private let calendar: MaintenanceCalendar
    private let location: String

    /// `lanes`: writers of their own, which `stop` stops, or (`ownsLanes`
    /// false) the hub's writer, which its owner stops.
    init(lanes: [BatchWriter], recorder: ResultRecorder, calendar: MaintenanceCalendar, location: String) {
        precondition(!lanes.isEmpty)
        self.lanes = lanes
        queue = Mutex(Queue(busy: Array(repeating: 0, count: lanes.count)))
        ownsLanes = lanes.count > 1
        self.recorder = recorder
        self.calendar = calendar
        self.location = location
    }

    /// Queues a ping; `completion` runs on the writer thread after the
    /// commit (nil = stored) and must not block.
    func add(_ ping: Ping) {
        let lane = queue.withLock { q -> Int? in
            q.pings.append(ping)
            if q.scheduled { return nil }
            q.scheduled = true
            // The least busy lane: an idle one takes the group at once.
            let lane = q.busy.indices.min { q.busy[$0] < q.busy[$1] }!
            q.busy[lane] += 1
            return lane
        }
        guard let lane else { return }
        let group = Group()
        lanes[lane].submit({ [self] c in
            try write(group.take(drain), group: group, on: c)
        }, completion: { [self] error in
            queue.withLock { $0.busy[lane] -= 1 }
            for (i, ping) in group.pings.enumerated() { ping.completion(error ?? group.error(at: i)) }
        })
    }

    /// Commits what is queued and stops the lanes of its own.
    func stop() {
        guard ownsLanes else { return }
        for lane in lanes { lane.stop() }
    }

    /// Everything queued so far; later pings schedule the next group.
    private func drain() -> [Ping] {
        queue.withLock { q in
            let pings = q.pings
            q.pings.removeAll(keepingCapacity: true)
            q.scheduled = false
            return pings
        }
    }

    private func write(_ pings: [Ping], group: Group, on c: Connection) throws {
        group.setErrors([:])
        try c.execute("SAVEPOINT pings")
        do {
            try writeTogether(pings, on: c)
            try c.execute("RELEASE pings")
        } catch {
            try c.execute("ROLLBACK TO pings")
            try c.execute("RELEASE pings")
            guard pings.count > 1 else { throw error }
            var errors: [Int: any Error] = [:]
            for (i, ping) in pings.enumerated() {
                try c.execute("SAVEPOINT ping")
                do {
                    try writeTogether([ping], on: c)
                    try c.execute("RELEASE ping")
                } catch {
                    errors[i] = error
                    try c.execute("ROLLBACK TO ping")
                    try c.execute("RELEASE ping")
                }
            }
            group.setErrors(errors)
        }
    }

    private func writeTogether(_ pings: [Ping], on c: Connection) throws {
        // The ping rows first: they lock nothing another group needs, so on
        // PostgreSQL this runs while the previous group (same monitors, other
        // lane) is still committing. Then the monitors' rows, locked in id
        // order: everything below sees the previous group's outcome.
        let rows = pings.map(\.row)
        try Heartbeats.insertMany(c, rows)
        var status = try Monitors.statusesForUpdate(c, ids: rows.map(\.monitorID))
        try Heartbeats.fold(c, rows)
        var quiet: [CheckResultRecord] = []
        var lastAt: [Int64: Int64] = [:]
        var lastOrder: [Int64] = []
        func writeQuiet() throws {
            try CheckResults.insertMany(c, quiet)
            for id in lastOrder {
                try Monitors.touchLast(c, id: id, at: lastAt[id]!, location: location, status: MonitorStatus.up.rawValue)
            }
            quiet.removeAll()
            lastAt.removeAll()
            lastOrder.removeAll()
        }
        for ping in pings {
            guard let result = ping.result else { continue }
            let id = ping.row.monitorID
            guard let current = status[id] else { continue }   // deleted meanwhile
            if result.outcome == .up && current.status == MonitorStatus.up.rawValue && !current.hasChildren {
                // Heartbeats have retries 0 and no latency: an up heartbeat
                // has no failure or slow streak and no open down/degraded
                // incident, so a success changes no state. Store the result
                // and the last-check columns; skip the state machine.
                quiet.append(ResultRecorder.row(result, monitorID: id, status: MonitorStatus.up.rawValue,
                                                inMaintenance: calendar.isInMaintenance(monitorID: id, at: result.at)))
                if lastAt[id] == nil { lastOrder.append(id) }
                lastAt[id] = max(lastAt[id] ?? result.at, result.at)
            } else {
                try writeQuiet()
                try recorder.apply(.result(result), monitorID: id, on: c, config: ping.config.value, returning: false)
                status[id]?.status = try Monitors.status(c, id: id) ?? current.status
            }
        }
        try writeQuiet()
    }
}
