/// When a dependent monitor's `monitor_down` may go out (SPEC §12). Pure: no
/// clock (the caller passes `now`), no I/O; `DependencyHolds` reads the views
/// and writes the outcome in the caller's transaction.
///
/// "As new as" is the order results were recorded in (`check_results.id`):
/// results are timed to the second, and a parent checked in the same second
/// as its child, just before it, must not count as newer.
///
/// A hold starts when a monitor with parents would raise `monitor_down`
/// (`since` = the failing result), and again when the parent that
/// suppressed it recovers while it is still down (`since` = the parent's
/// recovering result, so the child's next result decides: when both come
/// back together, the child's recovery closes the incident silently instead
/// of alerting about an outage that has just ended).
///
/// 1. **Suppress** at once when a parent (the first in id order) is `down`
///    now, however old its result: a down parent explains the failure, and
///    parents and children checked in the same second land in either order.
///    Should that parent recover while the child is still down, the re-hold
///    above makes the child's alert go out then.
/// 2. **Wait** while some view (the child or a parent) has no result at
///    least as new as `since` and `now < until` (`until` = the hold's start
///    + two of the child's intervals: a parent that never reports cannot hold
///    an alert forever). A paused parent never reports and is not down: it
///    counts as reported.
/// 3. Otherwise **release**: the alert goes out, as an independent failure.
public enum DependencyGate {
    /// What the gate needs of a monitor: its status and its newest result
    /// (that result's row id; nil = none yet).
    public struct View: Sendable, Equatable {
        public var id: Int64
        public var status: MonitorStatus
        public var newest: Int64?
        public init(id: Int64, status: MonitorStatus, newest: Int64?) {
            self.id = id
            self.status = status
            self.newest = newest
        }
    }

    public enum Decision: Sendable, Equatable {
        case wait
        case release
        case suppress(by: Int64)
    }

    /// How many of the child's intervals a hold lasts at most.
    public static let holdIntervals: Int64 = 2

    /// When a hold started at `start` (Unix seconds) ends at the latest.
    public static func until(start: Int64, interval: Int64) -> Int64 {
        start + holdIntervals * max(1, interval)
    }

    public static func decide(since: Int64, until: Int64, child: View, parents: [View], now: Int64) -> Decision {
        func reported(_ v: View) -> Bool { v.status == .paused || (v.newest ?? Int64.min) >= since }
        if let down = parents.sorted(by: { $0.id < $1.id }).first(where: { $0.status == .down }) {
            return .suppress(by: down.id)
        }
        let ready = reported(child) && parents.allSatisfy(reported)
        return !ready && now < until ? .wait : .release
    }
}
