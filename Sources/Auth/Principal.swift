import Store

/// Who is calling and with what rights, as established from a credential.
public struct Principal: Sendable {
    /// How the caller proved who it is. Account endpoints refuse OAuth access
    /// tokens: a phone's token must not mint API tokens or change passwords.
    public enum Credential: Sendable, Equatable {
        case apiToken(id: Int64)
        case oauthAccess(signInID: Int64)
        case session(id: Int64)
    }

    public let user: UserRecord
    public let role: Role
    /// The effective scope: the credential's, narrowed by the user's role.
    public let scope: Scope
    public let credential: Credential
    /// A web session started from the app's web-login link (SPEC §15): it
    /// has the app's limits, so it takes no account endpoints and its own-
    /// account writes need write scope like the app's token.
    public var fromApp = false

    public init(user: UserRecord, role: Role, scope: Scope, credential: Credential) {
        self.user = user
        self.role = role
        self.scope = scope
        self.credential = credential
    }

    public var isAdmin: Bool { role == .admin }

    /// Account endpoints take web sessions and API tokens only.
    public var mayUseAccountEndpoints: Bool {
        if case .oauthAccess = credential { return false }
        return !fromApp
    }
}
