/// When a dependent monitor's `monitor_down` may go out (SPEC §12). Pure: no
/// clock (the caller passes `now`), no I/O; `DependencyHolds` reads the views
/// and writes the outcome in the caller's transaction.
///
/// A hold starts when a monitor with parents would raise `monitor_down`
/// (`since` = the failing result's time), and again when the parent that
/// suppressed it recovers while it is still down (`since` = the parent's
/// recovering result, so the child's next result decides: when both come
/// back together, the child's recovery closes the incident silently instead
/// of alerting about an outage that has just ended).
///
/// 1. **Wait** while some view (the child or a parent) has no result at
///    least as new as `since` and `now < until` (`until` = `since` + two of
///    the child's intervals: a parent that never reports cannot hold an alert
///    forever). A paused parent never reports and is not down: it counts as
///    reported.
/// 2. Then, with what is known: the first parent (in id order) whose status
///    is `down` **suppresses** the incident; otherwise it is **released** and
///    its alert goes out, as an independent failure.
public enum DependencyGate {
    /// What the gate needs of a monitor: its status and its newest result.
    public struct View: Sendable, Equatable {
        public var id: Int64
        public var status: MonitorStatus
        public var lastAt: Int64?
        public init(id: Int64, status: MonitorStatus, lastAt: Int64?) {
            self.id = id
            self.status = status
            self.lastAt = lastAt
        }
    }

    public enum Decision: Sendable, Equatable {
        case wait
        case release
        case suppress(by: Int64)
    }

    /// How many of the child's intervals a hold lasts at most.
    public static let holdIntervals: Int64 = 2

    public static func until(since: Int64, interval: Int64) -> Int64 {
        since + holdIntervals * max(1, interval)
    }

    public static func decide(since: Int64, until: Int64, child: View, parents: [View], now: Int64) -> Decision {
        func reported(_ v: View) -> Bool { v.status == .paused || (v.lastAt ?? Int64.min) >= since }
        let ready = reported(child) && parents.allSatisfy(reported)
        if !ready && now < until { return .wait }
        if let down = parents.sorted(by: { $0.id < $1.id }).first(where: { $0.status == .down }) {
            return .suppress(by: down.id)
        }
        return .release
    }
}
