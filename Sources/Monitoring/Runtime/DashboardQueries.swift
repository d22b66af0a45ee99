import Core
import Store

/// One page of the dashboard (docs/web.md): its monitors worst first with
/// their newest results, and the status counts over every monitor.
public struct DashboardPage: Sendable {
    public var monitors: [(record: MonitorRecord, recent: [CheckResultRecord])]
    /// Where the next page starts; nil on the last page.
    public var next: MonitorListPosition?
    /// Monitors per status, over all monitors (not the filter).
    public var counts: [String: Int]

    public init(monitors: [(record: MonitorRecord, recent: [CheckResultRecord])], next: MonitorListPosition?,
                counts: [String: Int]) {
        self.monitors = monitors
        self.next = next
        self.counts = counts
    }
}

extension MonitoringService {
    /// One read: `limit` monitors after `after` in the dashboard's order
    /// (`MonitorListing`), each with its newest `recent` results (one
    /// indexed statement per monitor shown, so the page's cost follows its
    /// size, not the number of monitors), and the status counts from
    /// `MonitorStatusTally`. A reader that finds many deltas folds them
    /// afterwards, in a write of its own (about a millisecond), so the
    /// next page sums a handful of rows again.
    public func dashboardPage(filter: MonitorFilter, after: MonitorListPosition?, limit: Int,
                              recent: Int) throws -> DashboardPage {
        let (page, tallyRows) = try database.read { c in
            let rows = try MonitorListing.worstFirst(c, filter: filter, after: after, limit: limit + 1)
            let shown = Array(rows.prefix(limit))
            let next = rows.count > limit ? shown.last.map {
                MonitorListPosition(rank: MonitorListing.rank($0.status), name: $0.name, id: $0.id)
            } : nil
            let tally = try MonitorStatusTally.read(c)
            let page = DashboardPage(
                monitors: try shown.map { m in
                    (m, try CheckResults.list(c, monitorID: m.id, sinceMs: 0, untilMs: Int64.max, location: nil, beforeID: nil,
                                              limit: recent))
                },
                next: next, counts: tally.counts)
            return (page, tally.rows)
        }
        if tallyRows > MonitorStatusTally.foldAbove {
            // The page is already read; a failed fold only leaves the deltas
            // for the next reader or the retention pass.
            do { _ = try database.write { c in try MonitorStatusTally.fold(c) } } catch {
                Log.shared.warn("status tally fold failed", ["error": "\(error)"])
            }
        }
        return page
    }
}
