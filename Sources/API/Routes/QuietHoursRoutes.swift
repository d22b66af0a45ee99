import Auth
import Core
import HTTP
import Notify

/// `/api/me/quiet-hours` (SPEC §10): the caller's own quiet hours. Reading
/// needs read; writing is an own-account write that is not an account
/// endpoint, so the app's access token may do it (with write scope), and a
/// readonly user may from their own web session.
struct QuietHoursRoutes {
    let access: Access
    let quietHours: QuietHoursService

    func register(_ r: inout RouteTable) {
        r.get("/api/me/quiet-hours", access.rule(.read) { _, p in .json(try quietHours.get(userID: p.user.id).json) })
        r.put("/api/me/quiet-hours", access.rule(.ownWrite, put))
    }

    func put(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let q = try QuietHoursValidator.parse(try req.jsonFields())
        return .json(try quietHours.set(userID: p.user.id, q).json)
    }
}
