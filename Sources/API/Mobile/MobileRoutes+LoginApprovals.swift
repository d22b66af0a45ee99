import Auth
import Core
import HTTP
import Store

/// `/api/mobile/login-approvals` (SPEC §11): the phone's side of approving a
/// web sign-in. Like the device endpoints they need the app's access token
/// (an approval is answered from a phone, not from a script or a browser,
/// which could be the very browser asking). Read scope is enough: a
/// readonly user signs in too.
extension MobileRoutes {
    /// The caller's approvals waiting for an answer, oldest first; never the number.
    func pendingApprovals(_ req: HTTPRequest, _ p: Principal, _: Int64) throws -> HTTPResponse {
        let items = try approvals.pending(userID: p.user.id).map(Self.approval)
        return .json(.object(JSONObject([("items", .array(items)), ("next_cursor", .null)])))
    }

    /// `{"code": "42", "approve": true}` → `{"status": "approved"|"refused"}`.
    /// A wrong number or a no refuses it, and counts as a failed second
    /// factor on the browser's address and the account (a guess costs the
    /// guesser the approval and a place in the rate limit).
    func answerApproval(_ req: HTTPRequest, _ p: Principal, _: Int64) throws -> HTTPResponse {
        let id = req.parameters["id"] ?? ""
        let f = try req.jsonFields()
        guard let approve = try f.bool("approve") else {
            throw JSONFieldError(field: "approve", message: "approve is required: true or false.")
        }
        let code = try f.string("code")
        if approve || code != nil {
            // The format is public; a typo in it should not cost the approval.
            guard let code, code.utf8.count == 2, code.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw JSONFieldError(field: "code", message: "code must be the two-digit number the browser shows.")
            }
        }
        switch try approvals.answer(id: id, userID: p.user.id, code: code, approve: approve) {
        case .notFound:
            throw HTTPError.notFound("No sign-in approval with this id.")
        case .ended:
            throw HTTPError(409, "approval_ended", "This sign-in approval has already ended (answered, used or expired).")
        case .approved:
            Log.shared.info("sign-in approval approved", ["user_id": "\(p.user.id)"])
            return .json(.object(JSONObject([("status", "approved")])))
        case .refused(let a):
            limiter.recordFailure(account: p.user.email, address: a.address, factor: .secondFactor)
            Log.shared.warn("sign-in approval refused", ["user_id": "\(p.user.id)", "client": a.client,
                                                         "declined": approve ? "no" : "yes"])
            return .json(.object(JSONObject([("status", "refused")])))
        }
    }

    static func approval(_ a: LoginApprovalRecord) -> JSON {
        .object(JSONObject([("id", .string(a.id)), ("created_at", .time(a.createdAt)), ("expires_at", .time(a.expiresAt)),
                            ("client", .string(a.client))]))
    }
}
