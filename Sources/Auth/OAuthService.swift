import Core
import Crypto
import Store

/// An OAuth error for the token endpoint (RFC 6749 §5.2).
public struct OAuthError: Error, Sendable, Equatable {
    public var code: String
    public var description: String
    public init(_ code: String, _ description: String) {
        self.code = code
        self.description = description
    }
    /// `invalid_client` is 401 (RFC 6749 §5.2); everything else 400.
    public var status: Int { code == "invalid_client" ? 401 : 400 }
}

/// A successful token response.
public struct OAuthTokens: Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    public var expiresIn: Int64
    /// The access token's scope.
    public var scope: Scope
}

/// The authorization server's logic (SPEC §4), free of HTTP: codes, grants,
/// rotation and revocation. Each grant is one write transaction; since a
/// failing grant may still have to commit a revocation, transaction bodies
/// return an outcome and errors are thrown after the commit.
public final class OAuthService: Sendable {
    public static let codeLifetime: Int64 = 60
    public static let accessLifetime: Int64 = 3600
    public static let refreshLifetime: Int64 = 30 * 86400

    public let clients: OAuthClients
    private let database: Database
    private let clock: @Sendable () -> Int64

    public init(database: Database, clients: OAuthClients = OAuthClients(),
                clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.clients = clients
        self.clock = clock
    }

    /// The consent was given: creates the sign-in and its single-use code.
    /// A readonly user's sign-in is read whatever was chosen.
    public func approve(user: UserRecord, request: AuthorizeRequest, scope chosen: Scope) throws -> String {
        let role = Role(rawValue: user.role) ?? .readonly
        let scope = Scope.effective(min(chosen, request.scope), role: role)
        let code = Base64URL.encode(SecureRandom.bytes(32))
        let now = clock()
        try database.write { c in
            let signIn = try OAuthStore.insertSignIn(c, userID: user.id, clientID: request.client.id,
                                                     scope: scope.rawValue, now: now)
            try OAuthStore.insertCode(c, hash: SHA256.hash(code), signInID: signIn.id, clientID: request.client.id,
                                      redirectURI: request.redirectURI, challenge: request.codeChallenge,
                                      userID: user.id, scope: scope.rawValue, expiresAt: now + Self.codeLifetime)
        }
        Log.shared.info("oauth consent given", ["user_id": "\(user.id)", "client_id": request.client.id, "scope": scope.rawValue])
        return code
    }

    private enum Outcome {
        case issued(OAuthTokens)
        case failed(OAuthError)
    }

    private func finish(_ outcome: Outcome) throws(OAuthError) -> OAuthTokens {
        switch outcome {
        case .issued(let tokens): return tokens
        case .failed(let error): throw error
        }
    }

    private func knownClient(_ clientID: String?) throws(OAuthError) -> OAuthClient {
        guard let clientID, !clientID.isEmpty else { throw OAuthError("invalid_request", "client_id is required.") }
        guard let client = clients.find(clientID) else { throw OAuthError("invalid_client", "Unknown client_id.") }
        return client
    }

    /// `grant_type=authorization_code`.
    public func exchange(code: String?, verifier: String?, clientID: String?, redirectURI: String?) throws -> OAuthTokens {
        guard let code, !code.isEmpty else { throw OAuthError("invalid_request", "code is required.") }
        guard let verifier, !verifier.isEmpty else { throw OAuthError("invalid_request", "code_verifier is required.") }
        let client = try knownClient(clientID)
        guard OAuthAuthorize.isPKCEValue(verifier) else {
            throw OAuthError("invalid_request", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.")
        }
        let now = clock()
        let outcome = try database.write { c throws -> Outcome in
            guard let record = try OAuthStore.code(c, hash: SHA256.hash(code)) else {
                return .failed(OAuthError("invalid_grant", "The code is unknown."))
            }
            // A second use means the code leaked or was replayed: end the
            // sign-in so nothing issued from it keeps working (RFC 6749 §4.1.2).
            if record.usedAt != nil {
                try OAuthStore.revokeSignIn(c, id: record.signInID, now: now)
                Log.shared.warn("oauth code reused; sign-in revoked", ["signin_id": "\(record.signInID)"])
                return .failed(OAuthError("invalid_grant", "The code was already used; what it issued is revoked."))
            }
            if record.expiresAt <= now { return .failed(OAuthError("invalid_grant", "The code has expired.")) }
            guard record.clientID == client.id else {
                return .failed(OAuthError("invalid_grant", "The code was issued to another client."))
            }
            if let redirectURI, redirectURI != record.redirectURI {
                return .failed(OAuthError("invalid_grant", "redirect_uri differs from the authorization request's."))
            }
            guard constantTimeEquals(Array(Base64URL.encode(SHA256.hash(verifier)).utf8), Array(record.codeChallenge.utf8)) else {
                return .failed(OAuthError("invalid_grant", "code_verifier does not match the code_challenge."))
            }
            guard try OAuthStore.markCodeUsed(c, id: record.id, now: now),
                  let signIn = try OAuthStore.signIn(c, id: record.signInID), signIn.revokedAt == nil,
                  let user = try Users.find(c, id: record.userID) else {
                return .failed(OAuthError("invalid_grant", "The code is no longer valid."))
            }
            let role = Role(rawValue: user.role) ?? .readonly
            let scope = Scope.effective(Scope(rawValue: record.scope) ?? .read, role: role)
            return .issued(try issue(c, signIn: signIn, accessScope: scope, refreshScope: scope, codeID: record.id, now: now))
        }
        return try finish(outcome)
    }

    /// `grant_type=refresh_token`: rotation with replay detection.
    public func refresh(token: String?, clientID: String?, scope requested: String?) throws -> OAuthTokens {
        guard let token, !token.isEmpty else { throw OAuthError("invalid_request", "refresh_token is required.") }
        let client = try knownClient(clientID)
        var narrowed: Scope?
        if let requested {
            guard let s = Scope(oauth: requested) else { throw OAuthError("invalid_scope", "scope must be read, or read write.") }
            narrowed = s
        }
        guard let hash = TokenFactory.hashPresented(token, expecting: [.oauthRefresh]) else {
            throw OAuthError("invalid_grant", "The refresh token is malformed.")
        }
        let now = clock()
        let outcome = try database.write { c throws -> Outcome in
            guard let record = try OAuthStore.token(c, hash: hash), record.kind == .refresh,
                  let signIn = try OAuthStore.signIn(c, id: record.signInID), signIn.revokedAt == nil else {
                return .failed(OAuthError("invalid_grant", "The refresh token is unknown or revoked."))
            }
            guard signIn.clientID == client.id else {
                return .failed(OAuthError("invalid_grant", "The refresh token was issued to another client."))
            }
            // Presenting a rotated token: either it was stolen or the client
            // lost a response; both end the sign-in (RFC 9700 §4.14.2).
            // The compare-and-set also makes the loser of a concurrent race
            // land here, so at most one refresh with one token succeeds.
            let reused = { () throws -> Outcome in
                try OAuthStore.revokeSignIn(c, id: signIn.id, now: now)
                Log.shared.warn("rotated oauth refresh token reused; sign-in revoked", ["signin_id": "\(signIn.id)"])
                return .failed(OAuthError("invalid_grant", "The refresh token was already used; the sign-in is revoked."))
            }
            guard record.rotatedAt == nil else { return try reused() }
            if record.expiresAt <= now { return .failed(OAuthError("invalid_grant", "The refresh token has expired.")) }
            guard let user = try Users.find(c, id: signIn.userID) else {
                return .failed(OAuthError("invalid_grant", "The user no longer exists."))
            }
            // Refused before the token is rotated: a client that asks for too
            // much has made a mistake, not a replay, and keeps its sign-in.
            let consented = Scope.effective(Scope(rawValue: signIn.scope) ?? .read, role: Role(rawValue: user.role) ?? .readonly)
            if let narrowed, narrowed > consented {
                return .failed(OAuthError("invalid_scope", "The scope asked for is wider than the sign-in's."))
            }
            guard try OAuthStore.markRotated(c, id: record.id, now: now) else { return try reused() }
            return .issued(try issue(c, signIn: signIn, accessScope: narrowed ?? consented, refreshScope: consented,
                                     codeID: nil, now: now))
        }
        return try finish(outcome)
    }

    private func issue(_ c: Connection, signIn: OAuthSignInRecord, accessScope: Scope, refreshScope: Scope,
                       codeID: Int64?, now: Int64) throws -> OAuthTokens {
        let access = TokenFactory.generate(.oauthAccess)
        let refresh = TokenFactory.generate(.oauthRefresh)
        try OAuthStore.insertToken(c, hash: access.hash, kind: .access, signInID: signIn.id, scope: accessScope.rawValue,
                                   now: now, expiresAt: now + Self.accessLifetime, codeID: codeID)
        try OAuthStore.insertToken(c, hash: refresh.hash, kind: .refresh, signInID: signIn.id, scope: refreshScope.rawValue,
                                   now: now, expiresAt: now + Self.refreshLifetime, codeID: codeID)
        try OAuthStore.touchSignIn(c, id: signIn.id, at: now)
        return OAuthTokens(accessToken: access.token, refreshToken: refresh.token, expiresIn: Self.accessLifetime,
                           scope: accessScope)
    }

    /// RFC 7009: either kind of token ends its whole sign-in. Unknown,
    /// malformed or already revoked tokens are not an error (the caller
    /// answers 200 regardless, so revocation reveals nothing).
    public func revoke(token: String) throws {
        guard let hash = TokenFactory.hashPresented(token, expecting: [.oauthAccess, .oauthRefresh]) else { return }
        let now = clock()
        try database.write { c in
            guard let record = try OAuthStore.token(c, hash: hash) else { return }
            try OAuthStore.revokeSignIn(c, id: record.signInID, now: now)
            Log.shared.info("oauth sign-in revoked by token", ["signin_id": "\(record.signInID)"])
        }
    }

    // MARK: connected apps

    /// Live sign-ins of one user, or of everyone (`userID` nil, admins only).
    public func signIns(userID: Int64?, afterID: Int64?, limit: Int) throws -> [(signIn: OAuthSignInRecord, user: UserRecord)] {
        try database.read { try OAuthStore.listSignIns($0, userID: userID, afterID: afterID, limit: limit) }
    }

    /// Revokes a sign-in of `user`'s own (admins: anyone's); others' are 404.
    public func revokeSignIn(id: Int64, by user: UserRecord, isAdmin: Bool) throws {
        let now = clock()
        try database.write { c in
            guard let signIn = try OAuthStore.signIn(c, id: id), signIn.revokedAt == nil,
                  signIn.userID == user.id || isAdmin else {
                throw AuthError.notFound("No connected app with id \(id).")
            }
            try OAuthStore.revokeSignIn(c, id: id, now: now)
        }
        Log.shared.info("oauth sign-in revoked", ["signin_id": "\(id)", "by_user_id": "\(user.id)"])
    }
}
