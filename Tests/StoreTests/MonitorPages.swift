@testable import Store

/// Every page of a monitor list, each after the previous page's last row:
/// what a client paging with the API's cursor or the dashboard's position
/// reads in the end. Shared by the listing and search tests, which check
/// that the pages together are exactly the matches, once each, in order.
enum MonitorPages {
    /// `GET /api/monitors`: id order, `after` the last id.
    static func api(_ db: Database, _ filter: MonitorFilter, pageSize: Int) throws -> [MonitorRecord] {
        var out: [MonitorRecord] = []
        var after: Int64?
        while true {
            let page = try db.read { c in try Monitors.list(c, filter: filter, afterID: after, limit: pageSize) }
            out += page
            guard page.count == pageSize, let last = page.last else { return out }
            after = last.id
        }
    }

    /// The dashboard: worst first, then name, then id.
    static func dashboard(_ db: Database, _ filter: MonitorFilter, pageSize: Int) throws -> [MonitorRecord] {
        var out: [MonitorRecord] = []
        var after: MonitorListPosition?
        while true {
            let page = try db.read { c in try MonitorListing.worstFirst(c, filter: filter, after: after, limit: pageSize) }
            out += page
            guard page.count == pageSize, let last = page.last else { return out }
            after = MonitorListPosition(rank: MonitorListing.rank(last.status), name: last.name, id: last.id)
        }
    }
}
