import Auth
import Core
import HTTP
import Notify

/// `GET /api/events` (SPEC §10): what the hub raised, oldest first, for an
/// app that reconnects and asks `?after=<the last id it saw>`. `?limit=`
/// and `?cursor=` work as on every list; `next_cursor` continues the same
/// walk, and `after` and a cursor together continue from the later of the two.
struct EventRoutes {
    let access: Access
    let events: EventFeed

    func register(_ r: inout RouteTable) {
        r.get("/api/events", access.rule(.read, list))
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let page = try Page(req)
        var after: Int64 = 0
        if let text = req.query("after") {
            guard let id = Int64(text), id >= 0 else {
                throw HTTPError(400, "validation_failed", "after must be an event id (an integer, 0 or more).", field: "after")
            }
            after = id
        }
        let rows = try events.items(afterID: max(after, page.afterID ?? 0), limit: page.fetchLimit)
        return page.response(rows, id: \.id) { $0.json }
    }
}
