import Auth
import HTTP

/// Least privilege for every endpoint: who may call it is declared where the
/// route is, and checked in one order: credential (401), account endpoint
/// (403 `account_endpoint`), scope (403 `insufficient_scope`), role (403
/// `admin_required`).
struct Access: Sendable {
    let authenticator: Authenticator

    struct Rule: Sendable {
        var scope: Scope
        var admin = false
        var account = false
        static let read = Rule(scope: .read)
        static let write = Rule(scope: .write)
        static let accountRead = Rule(scope: .read, account: true)
        static let accountWrite = Rule(scope: .write, account: true)
        static let adminAccountRead = Rule(scope: .read, admin: true, account: true)
        static let adminAccountWrite = Rule(scope: .write, admin: true, account: true)
    }

    func check(_ request: HTTPRequest, _ rule: Rule) throws -> Principal {
        let principal = try authenticator.authenticate(authorization: request.headers["Authorization"])
        if rule.account && !principal.mayUseAccountEndpoints {
            throw HTTPError(403, "account_endpoint",
                            "Account endpoints take a web session or an API token, not an OAuth access token.")
        }
        if !principal.scope.allows(rule.scope) {
            throw HTTPError(403, "insufficient_scope", "This needs a token with \(rule.scope.rawValue) scope.")
        }
        if rule.admin && !principal.isAdmin {
            throw HTTPError(403, "admin_required", "Only an admin may do this.")
        }
        return principal
    }
}
