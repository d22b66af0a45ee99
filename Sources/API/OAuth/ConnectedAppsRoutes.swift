import Notify
import Auth
import Core
import HTTP
import Store

/// `/api/connected-apps` (ACCT): the caller's OAuth sign-ins; an admin may
/// list (`?all=true`, `?user_id=`) and revoke anyone's.
struct ConnectedAppsRoutes {
    let access: Access
    let service: OAuthService
    /// For each sign-in's phones (`devices`).
    let devices: MobileDeviceService

    func register(_ r: inout RouteTable) {
        r.get("/api/connected-apps", access.rule(.accountRead, list))
        r.delete("/api/connected-apps/{id}", access.rule(.accountWrite, revoke))
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        var userID: Int64? = p.user.id
        if req.query("all") == "true" || req.query("user_id") != nil {
            guard p.isAdmin else { throw HTTPError(403, "admin_required", "Only an admin may list other users' apps.") }
            if let text = req.query("user_id") {
                guard let id = Int64(text), id > 0 else {
                    throw HTTPError(400, "validation_failed", "user_id must be a user id.", field: "user_id")
                }
                userID = id
            } else {
                userID = nil
            }
        }
        let page = try Page(req)
        let rows = try service.signIns(userID: userID, afterID: page.afterID, limit: page.fetchLimit)
        return try page.response(rows, id: \.signIn.id) { shown in
            // Each shown sign-in's phones, from one snapshot (an indexed lookup each).
            let phones = try devices.devices(signInIDs: shown.map(\.signIn.id))
            return zip(shown, phones).map { row, phones in render(row.signIn, row.user, devices: phones) }
        }
    }

    func revoke(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try service.revokeSignIn(id: try req.intParameter("id"), by: p.user, isAdmin: p.isAdmin)
        return .noContent()
    }

    /// `scope` in OAuth's form ("read" / "read write"), as the app saw it in
    /// its token response. `devices` are the phones enrolled on the sign-in,
    /// in the `/api/mobile/devices` shape (no push tokens).
    func render(_ s: OAuthSignInRecord, _ u: UserRecord, devices: [MobileDeviceRecord]) -> JSON {
        let scope = Scope(rawValue: s.scope) ?? .read
        return ["id": .int(s.id), "client_id": .string(s.clientID),
                "client_name": .string(service.clients.find(s.clientID)?.name ?? s.clientID),
                "scope": .string(Scope.effective(scope, role: Role(rawValue: u.role) ?? .readonly).oauthString),
                "created_at": .time(s.createdAt), "last_used_at": .time(s.lastUsedAt),
                "user": ["id": .int(u.id), "email": .string(u.email)], "devices": .array(devices.map(MobileInput.device))]
    }
}
