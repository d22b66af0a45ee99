import Core
import Store
import Synchronization

/// Turns a bearer token into a `Principal`. `authenticate` reads the
/// database, so a revoked token or a deleted user stops working at once;
/// reads run on a reader connection and never wait for writers (WAL).
/// `cachedPrincipal` answers from what `authenticate` checked this second,
/// without blocking (see `CredentialCache` for when it may).
public final class Authenticator: Sendable {
    private let database: Database
    private let cache = CredentialCache()
    private let clock: @Sendable () -> Int64
    /// Last `last_used_at` written per token: the column is refreshed at most
    /// once a minute so authentication does not turn every read into a write.
    private let lastTouched = Mutex<[Int64: Int64]>([:])
    private let lastTouchedSignIns = Mutex<[Int64: Int64]>([:])
    private static let touchInterval: Int64 = 60
    /// Built once: a set literal at the call allocates on every request.
    private static let bearerKinds: [TokenKind] = [.apiToken, .oauthAccess]

    public init(database: Database, clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.clock = clock
    }

    /// Authenticates `Authorization: Bearer <token>` (the header's value).
    public func authenticate(authorization: String?) throws(AuthError) -> Principal {
        guard let authorization, !authorization.isEmpty else {
            throw .unauthenticated("This endpoint needs a bearer token.")
        }
        guard let token = BearerCredentials.token(authorization) else {
            throw .unauthenticated(BearerCredentials.isBearer(authorization)
                ? "The token is malformed or of a kind this endpoint does not take."
                : "Use the Authorization: Bearer <token> scheme.")
        }
        return try authenticate(bearer: token)
    }

    /// The principal of `Authorization: Bearer <token>` if this hub checked
    /// the token against the database in the current second and nothing it
    /// committed since changes credentials; nil means: call `authenticate`.
    /// Never blocks, so an event loop may call it.
    public func cachedPrincipal(authorization: String) -> Principal? {
        cached(authorization: authorization)?.principal
    }

    /// `cachedPrincipal` as the kept object, with the answers made from it
    /// (`KeptCaller.answer`).
    public func cached(authorization: String) -> KeptCaller? {
        guard let token = BearerCredentials.token(authorization),
              let hash = TokenFactory.hashPresented(token, expecting: Self.bearerKinds),
              let digest = CredentialCache.Digest(hash) else { return nil }
        return cache.caller(for: digest, generation: database.credentialGeneration, now: clock())
    }

    public func authenticate(bearer token: String) throws(AuthError) -> Principal {
        guard let hash = TokenFactory.hashPresented(token, expecting: Self.bearerKinds) else {
            throw .unauthenticated("The token is malformed or of a kind this endpoint does not take.")
        }
        // Read before the database: a change committed after it leaves what
        // is kept below stale.
        let generation = database.credentialGeneration
        if TokenKind.of(token) == .oauthAccess { return try authenticateAccess(hash: hash, generation: generation) }
        let found: (token: APITokenRecord, user: UserRecord)?
        do {
            found = try database.readStatement { try APITokens.findByHash($0, hash: hash) }
        } catch {
            Log.shared.error("token lookup failed", ["error": "\(error)"])
            throw .unauthenticated("The token could not be checked.")
        }
        guard let found else { throw .unauthenticated("The token is unknown or revoked.") }
        let now = clock()
        if let expires = found.token.expiresAt, expires <= now {
            throw .unauthenticated("The token has expired.")
        }
        let role = Role(rawValue: found.user.role) ?? .readonly
        let scope = Scope.effective(Scope(rawValue: found.token.scope) ?? .read, role: role)
        touch(found.token.id, now: now)
        let principal = Principal(user: found.user, role: role, scope: scope, credential: .apiToken(id: found.token.id))
        keep(principal, hash: hash, generation: generation, now: now)
        return principal
    }

    /// A `pma_` access token: unknown, expired or of a revoked sign-in → 401.
    /// The principal's credential is the sign-in, so account endpoints can
    /// refuse it (`Principal.mayUseAccountEndpoints`).
    private func authenticateAccess(hash: [UInt8], generation: UInt64) throws(AuthError) -> Principal {
        let found: (token: OAuthTokenRecord, signIn: OAuthSignInRecord, user: UserRecord)?
        do {
            found = try database.readStatement { try OAuthStore.accessToken($0, hash: hash) }
        } catch {
            Log.shared.error("oauth token lookup failed", ["error": "\(error)"])
            throw .unauthenticated("The token could not be checked.")
        }
        guard let found else { throw .unauthenticated("The token is unknown or revoked.") }
        let now = clock()
        if found.token.expiresAt <= now { throw .unauthenticated("The access token has expired.") }
        let role = Role(rawValue: found.user.role) ?? .readonly
        let scope = Scope.effective(Scope(rawValue: found.token.scope) ?? .read, role: role)
        touchSignIn(found.signIn.id, now: now)
        let principal = Principal(user: found.user, role: role, scope: scope,
                                  credential: .oauthAccess(signInID: found.signIn.id))
        keep(principal, hash: hash, generation: generation, now: now)
        return principal
    }

    private func keep(_ principal: Principal, hash: [UInt8], generation: UInt64, now: Int64) {
        guard let digest = CredentialCache.Digest(hash) else { return }
        cache.keep(principal, for: digest, generation: generation, now: now)
    }

    /// Same once-a-minute rule as API tokens, for a sign-in's last_used_at.
    private func touchSignIn(_ id: Int64, now: Int64) {
        let due = lastTouchedSignIns.withLock { map -> Bool in
            if let last = map[id], now - last < Self.touchInterval { return false }
            map[id] = now
            return true
        }
        guard due else { return }
        do {
            try database.write { try OAuthStore.touchSignIn($0, id: id, at: now) }
        } catch {
            Log.shared.warn("could not record sign-in use", ["signin_id": "\(id)", "error": "\(error)"])
        }
    }

    private func touch(_ id: Int64, now: Int64) {
        let due = lastTouched.withLock { map -> Bool in
            if let last = map[id], now - last < Self.touchInterval { return false }
            map[id] = now
            return true
        }
        guard due else { return }
        do {
            try database.write { try APITokens.touch($0, id: id, at: now) }
        } catch {
            Log.shared.warn("could not record token use", ["token_id": "\(id)", "error": "\(error)"])
        }
    }
}
