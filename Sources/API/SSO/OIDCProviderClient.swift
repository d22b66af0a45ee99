import Core
import Crypto
import HTTP
import Net
import Synchronization

/// The provider endpoints from discovery (OpenID Connect Discovery 1.0).
struct OIDCMetadata: Sendable {
    let issuer: String
    let authorizationEndpoint: String
    let tokenEndpoint: String
    let jwksURI: String
    let tokenAuthMethods: [String]
}

/// Why talking to the provider failed; the text is for the log and the
/// error page, never containing tokens or the client secret.
struct OIDCProviderError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// One provider's discovery document and JWKS, fetched with the hub's own
/// HTTP client and cached as the provider's `Cache-Control: max-age` says,
/// clamped to 5 min–24 h (a provider saying "no-cache" must not make every
/// sign-in fetch twice; one saying "a year" must not pin a key past a
/// rotation). A token signed with a kid we do not know triggers one early
/// JWKS refetch (rotation without a restart), at most once per
/// `refetchInterval`, so forged kids cannot make us hammer the provider.
final class OIDCProviderClient: Sendable {
    let issuer: String
    private let http: ClientEngine
    private let timeoutMillis: Int
    static let minCache: Int64 = 300
    static let maxCache: Int64 = 86_400
    static let refetchInterval: Int64 = 10

    private struct Cached<T: Sendable>: Sendable {
        let value: T
        let expires: Int64
    }

    private struct State: Sendable {
        var metadata: Cached<OIDCMetadata>?
        var keys: Cached<JWKSet>?
        var lastForcedRefetch: Int64 = 0
    }

    private let state = Mutex(State())

    init(issuer: String, http: ClientEngine, timeoutMillis: Int = 10_000) {
        self.issuer = issuer
        self.http = http
        self.timeoutMillis = timeoutMillis
    }

    func metadata() throws(OIDCProviderError) -> OIDCMetadata {
        let now = Time.now()
        if let m = state.withLock({ $0.metadata }), m.expires > now { return m.value }
        var base = Substring(issuer)
        while base.hasSuffix("/") { base = base.dropLast() }
        let (json, maxAge) = try fetchJSON(String(base) + "/.well-known/openid-configuration", what: "discovery document")
        func field(_ name: String) throws(OIDCProviderError) -> String {
            guard let s = json[name]?.stringValue, !s.isEmpty else { throw OIDCProviderError("discovery document lacks \(name)") }
            return s
        }
        // OpenID Connect Discovery §4.3: the issuer in the document must be
        // exactly the one configured, or a different provider answered.
        let advertised = try field("issuer")
        guard advertised == issuer else {
            throw OIDCProviderError("discovery document names issuer \(advertised), configured is \(issuer)")
        }
        let methods = json["token_endpoint_auth_methods_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let m = OIDCMetadata(issuer: advertised, authorizationEndpoint: try field("authorization_endpoint"),
                             tokenEndpoint: try field("token_endpoint"), jwksURI: try field("jwks_uri"), tokenAuthMethods: methods)
        state.withLock { $0.metadata = Cached(value: m, expires: now + maxAge) }
        return m
    }

    /// Verifies the ID token's signature with the cached keys, refetching
    /// them once when the token's kid is unknown.
    func verify(_ idToken: String) throws -> VerifiedJWT {
        let keys = try keySet(force: false)
        let first: Result<VerifiedJWT, JWTError> = Result { () throws(JWTError) -> VerifiedJWT in try JWT.verify(idToken, keys: keys) }
        switch first {
        case .success(let v): return v
        case .failure(let e):
            guard case .unknownKey = e else { throw e }
            let now = Time.now()
            let allowed = state.withLock { s -> Bool in
                guard now - s.lastForcedRefetch >= Self.refetchInterval else { return false }
                s.lastForcedRefetch = now
                return true
            }
            guard allowed else { throw JWTError.unknownKey(nil) }
            Log.shared.info("sso: unknown signing key, refetching JWKS", ["issuer": issuer])
            return try JWT.verify(idToken, keys: try keySet(force: true))
        }
    }

    private func keySet(force: Bool) throws(OIDCProviderError) -> JWKSet {
        let now = Time.now()
        if !force, let k = state.withLock({ $0.keys }), k.expires > now { return k.value }
        let m = try metadata()
        let (json, maxAge) = try fetchJSON(m.jwksURI, what: "JWKS")
        let set: JWKSet
        do { set = try JWKSet(json: json) } catch { throw OIDCProviderError("JWKS unusable: \(error)") }
        guard !set.keys.isEmpty else { throw OIDCProviderError("JWKS has no RS256/ES256 signing keys") }
        state.withLock { $0.keys = Cached(value: set, expires: now + maxAge) }
        return set
    }

    /// POSTs the token request; returns the parsed JSON body of a 200.
    func tokenRequest(endpoint: String, form: [(String, String)], basicAuth: (String, String)?) throws(OIDCProviderError) -> JSON {
        let body = form.map { FormCoding.percentEncode($0.0) + "=" + FormCoding.percentEncode($0.1) }.joined(separator: "&")
        var headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
        if let auth = basicAuth {
            // RFC 6749 §2.3.1: both parts form-encoded before base64.
            let pair = FormCoding.percentEncode(auth.0) + ":" + FormCoding.percentEncode(auth.1)
            headers.append(("Authorization", "Basic " + Base64.encode(Array(pair.utf8))))
        }
        var req = ClientRequest(method: "POST", url: endpoint, headers: headers, body: Array(body.utf8))
        req.followRedirects = false
        req.timeoutMillis = timeoutMillis
        let result = http.execute(req)
        guard let response = result.response else {
            throw OIDCProviderError("token endpoint unreachable: \(result.errorDescription ?? "no response")")
        }
        let json = try? JSON.parse(response.body)
        guard response.status == 200, let json, json.objectValue != nil else {
            // The provider's error code is safe to log; its body might not be.
            let code = json?["error"]?.stringValue ?? "HTTP \(response.status)"
            throw OIDCProviderError("token endpoint refused the code: \(code.prefix(100))")
        }
        return json
    }

    private func fetchJSON(_ url: String, what: String) throws(OIDCProviderError) -> (JSON, Int64) {
        var req = ClientRequest(url: url)
        req.headers = [("Accept", "application/json")]
        req.followRedirects = false
        req.timeoutMillis = timeoutMillis
        let result = http.execute(req)
        guard let response = result.response else {
            throw OIDCProviderError("\(what) unreachable: \(result.errorDescription ?? "no response")")
        }
        guard response.status == 200 else { throw OIDCProviderError("\(what) answered HTTP \(response.status)") }
        guard let json = try? JSON.parse(response.body), json.objectValue != nil else {
            throw OIDCProviderError("\(what) is not a JSON object")
        }
        return (json, Self.cacheLifetime(response.headers["Cache-Control"]))
    }

    /// `max-age` clamped to [minCache, maxCache]; an hour when absent.
    static func cacheLifetime(_ header: String?) -> Int64 {
        var age: Int64 = 3600
        for part in (header ?? "").split(separator: ",") {
            let p = part.trimmingSpaces().lowercased()
            if p.hasPrefix("max-age="), let n = Int64(p.dropFirst(8)) { age = n }
        }
        return min(max(age, minCache), maxCache)
    }
}
