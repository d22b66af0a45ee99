import Synchronization

/// Daily uptime of the days the retention job has closed into daily
/// roll-ups, kept per monitor for the span it was read for. A closed day
/// never changes (its roll-up is written once, from results that arrived
/// seconds after they ran), so a status page asked for again reads only the
/// days after the span instead of 89 rows per monitor: at 1,000 monitors
/// that read was most of the page's time (bench/pages.sh).
///
/// The span moves once a day (a new day closed, the oldest dropped out);
/// then everything is read again once. At most `maxMonitors` are kept: past
/// that the cache starts empty again (pages list up to 1,000 monitors each).
final class ClosedDaysCache: Sendable {
    private struct State {
        /// The closed days' span (`[first, until)`, Unix seconds) of every entry.
        var span: Range<Int64>?
        var byMonitor: [Int64: [DailyUptime]] = [:]
    }

    static let maxMonitors = 10_000
    private let state = Mutex(State())

    /// What is kept for `ids` over `span`, and the ids still to be read.
    func lookup(_ ids: [Int64], span: Range<Int64>) -> (kept: [Int64: [DailyUptime]], missing: [Int64]) {
        state.withLock { s in
            guard s.span == span else { return ([:], ids) }
            var kept: [Int64: [DailyUptime]] = [:]
            var missing: [Int64] = []
            for id in ids {
                if let days = s.byMonitor[id] { kept[id] = days } else { missing.append(id) }
            }
            return (kept, missing)
        }
    }

    /// Keeps freshly read closed days (replacing whatever another span kept).
    func store(_ read: [Int64: [DailyUptime]], span: Range<Int64>) {
        state.withLock { s in
            if s.span != span || s.byMonitor.count + read.count > Self.maxMonitors {
                s = State(span: span)
            }
            s.byMonitor.merge(read) { _, new in new }
        }
    }

    /// A monitor deleted: its entry goes with it.
    func remove(_ id: Int64) {
        _ = state.withLock { $0.byMonitor.removeValue(forKey: id) }
    }
}
