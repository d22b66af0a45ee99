import CShims
import Core
import Crypto
import HTTP
import Synchronization

/// A stand-in OpenID Connect provider: a real HTTP server on 127.0.0.1 with
/// its own RSA and EC keys (made with the openssl CLI), discovery, a JWKS
/// with `Cache-Control`, an authorize endpoint that approves at once
/// (redirecting back with code and state) and a token endpoint that issues
/// ID tokens it signs. Knobs make it misbehave the ways a relying party
/// must survive.
public final class FakeOIDCProvider: Sendable {
    /// What the next ID tokens say and how they are made.
    public struct Knobs: Sendable {
        public var email = "ada@example.com"
        public var emailVerified = true
        public var name = "Ada Lovelace"
        /// nil = the client id.
        public var audience: JSON? = nil
        public var azp: String? = nil
        /// Sent as the `groups` claim when not nil.
        public var groups: [String]? = nil
        public var expired = false
        public var badSignature = false
        public var wrongNonce = false
        public var useEC = false
        /// The EC key's x and y are published without leading zero bytes.
        public var minimalECCoordinates = false
        /// The token endpoint answers 503.
        public var tokenEndpointDown = false
        /// Only `client_secret_post` is advertised (else only basic).
        public var postAuthOnly = false
        public init() {}
    }

    public struct Grant: Sendable {
        let nonce: String
        let challenge: String
        let redirectURI: String
    }

    public let clientID: String
    public let clientSecret: String
    private let server: HTTPServer
    private let state: State

    public var port: UInt16 { server.port }
    public var issuer: String { "http://127.0.0.1:\(port)" }

    final class State: Sendable {
        let knobs = Mutex(Knobs())
        let rsa: Mutex<TestSigningKey>
        let ec: TestSigningKey
        let codes = Mutex<[String: Grant]>([:])
        let jwksFetches = Atomic<Int>(0)
        let tokenRequests = Mutex<[String]>([])   // client auth method used per request
        let issuer = Mutex("")

        init(rsa: TestSigningKey, ec: TestSigningKey) {
            self.rsa = Mutex(rsa)
            self.ec = ec
        }
    }

    /// `ecKey` replaces the EC key made with the openssl CLI (e.g. one with a
    /// leading zero coordinate).
    public init?(clientID: String = "pingtxt-hub", clientSecret: String = "s3cret value", ecKey: TestSigningKey? = nil) {
        guard let rsa = TestSigningKey(.rsa, kid: "rsa-1"), let ec = ecKey ?? TestSigningKey(.ec, kid: "ec-1") else { return nil }
        pt_ignore_sigpipe()
        self.clientID = clientID
        self.clientSecret = clientSecret
        let state = State(rsa: rsa, ec: ec)
        self.state = state
        let router = Router { r in
            r.add("GET", "/.well-known/openid-configuration", .pool) { _ in Self.discovery(state) }
            r.add("GET", "/jwks", .pool) { _ in Self.jwks(state) }
            r.add("GET", "/authorize", .pool) { req in Self.authorize(state, req, clientID: clientID) }
            r.add("POST", "/token", .pool) { req in Self.token(state, req, clientID: clientID, clientSecret: clientSecret) }
        }
        guard let server = try? HTTPServer(configuration: .loopbackPeer(), router: router) else { return nil }
        self.server = server
        state.issuer.withLock { $0 = "http://127.0.0.1:\(server.port)" }
    }

    private let stopped = Atomic<Bool>(false)

    deinit { stop() }

    /// Closes the listener: the provider is then down.
    public func stop() {
        if stopped.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            server.shutdown()
        }
    }

    public func configure(_ change: (inout Knobs) -> Void) { state.knobs.withLock { change(&$0) } }
    public var jwksFetches: Int { state.jwksFetches.load(ordering: .relaxed) }
    public var tokenAuthMethods: [String] { state.tokenRequests.withLock { $0 } }

    /// A new RSA key with a new kid replaces the old one, in the JWKS and for signing.
    public func rotateKey(kid: String) -> Bool {
        guard let key = TestSigningKey(.rsa, kid: kid) else { return false }
        state.rsa.withLock { $0 = key }
        return true
    }

    // MARK: endpoints

    private static func json(_ value: JSON, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", "application/json")
        for (k, v) in headers { h.add(k, v) }
        return HTTPResponse(status: status, headers: h, body: value.serialized())
    }

    private static func discovery(_ s: State) -> HTTPResponse {
        let issuer = s.issuer.withLock { $0 }
        let methods: JSON = s.knobs.withLock { $0.postAuthOnly } ? ["client_secret_post"] : ["client_secret_basic"]
        return json(["issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/authorize"),
                     "token_endpoint": .string(issuer + "/token"), "jwks_uri": .string(issuer + "/jwks"),
                     "response_types_supported": ["code"], "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                     "token_endpoint_auth_methods_supported": methods],
                    headers: [("Cache-Control", "public, max-age=3600")])
    }

    private static func jwks(_ s: State) -> HTTPResponse {
        s.jwksFetches.add(1, ordering: .relaxed)
        let minimal = s.knobs.withLock { $0.minimalECCoordinates }
        let keys: [JSON] = [s.rsa.withLock { $0.jwk }, minimal ? s.ec.minimalJWK : s.ec.jwk]
        return json(["keys": .array(keys)], headers: [("Cache-Control", "public, max-age=86400")])
    }

    private static func authorize(_ s: State, _ req: HTTPRequest, clientID: String) -> HTTPResponse {
        guard req.query("client_id") == clientID, req.query("response_type") == "code",
              req.query("code_challenge_method") == "S256", let challenge = req.query("code_challenge"),
              let redirect = req.query("redirect_uri"), let state = req.query("state"), let nonce = req.query("nonce"),
              req.query("scope")?.split(separator: " ").contains("openid") == true else {
            return HTTPResponse.text(400, "bad authorize request")
        }
        let code = Base64URL.encode(SecureRandom.bytes(16))
        s.codes.withLock { $0[code] = Grant(nonce: nonce, challenge: challenge, redirectURI: redirect) }
        var r = HTTPResponse(status: 302)
        r.headers.add("Location", redirect + "?code=" + code + "&state=" + FormCoding.percentEncode(state))
        return r
    }

    private static func token(_ s: State, _ req: HTTPRequest, clientID: String, clientSecret: String) -> HTTPResponse {
        let knobs = s.knobs.withLock { $0 }
        if knobs.tokenEndpointDown { return json(["error": "temporarily_unavailable"], status: 503) }
        let form = Dictionary(FormCoding.decode(String(decoding: req.body, as: UTF8.self)).map { ($0.name, $0.value) },
                              uniquingKeysWith: { a, _ in a })
        // Client authentication: Basic (form-encoded parts) or the secret in the body.
        let basic = "Basic " + Base64.encode(Array((FormCoding.percentEncode(clientID) + ":" + FormCoding.percentEncode(clientSecret)).utf8))
        let method: String
        if req.headers["Authorization"] == basic {
            method = "client_secret_basic"
        } else if form["client_id"] == clientID && form["client_secret"] == clientSecret {
            method = "client_secret_post"
        } else {
            return json(["error": "invalid_client"], status: 401)
        }
        s.tokenRequests.withLock { $0.append(method) }
        guard form["grant_type"] == "authorization_code", let code = form["code"],
              let grant = s.codes.withLock({ $0.removeValue(forKey: code) }) else {
            return json(["error": "invalid_grant"], status: 400)
        }
        guard form["redirect_uri"] == grant.redirectURI, let verifier = form["code_verifier"],
              Base64URL.encode(SHA256.hash(verifier)) == grant.challenge else {
            return json(["error": "invalid_grant", "error_description": "PKCE or redirect_uri mismatch"], status: 400)
        }
        let now = Time.now()
        var claims: [(String, JSON)] = [
            ("iss", .string(s.issuer.withLock { $0 })), ("sub", .string("user-" + knobs.email)),
            ("aud", knobs.audience ?? .string(clientID)),
            ("exp", .int(knobs.expired ? now - 600 : now + 300)), ("iat", .int(knobs.expired ? now - 900 : now)),
            ("nonce", .string(knobs.wrongNonce ? "not-the-nonce" : grant.nonce)),
            ("email", .string(knobs.email)), ("email_verified", .bool(knobs.emailVerified)), ("name", .string(knobs.name)),
        ]
        if let azp = knobs.azp { claims.append(("azp", .string(azp))) }
        if let groups = knobs.groups { claims.append(("groups", .array(groups.map { .string($0) }))) }
        let claimsJSON = JSON.object(JSONObject(claims))
        var idToken = knobs.useEC ? s.ec.sign(claims: claimsJSON) : s.rsa.withLock { $0.sign(claims: claimsJSON) }
        if knobs.badSignature {
            // Flip one signature bit: right key id, wrong signature.
            var parts = idToken.split(separator: ".").map(String.init)
            var sig = Base64URL.decode(parts[2])!
            sig[sig.count / 2] ^= 0x01
            parts[2] = Base64URL.encode(sig)
            idToken = parts.joined(separator: ".")
        }
        return json(["access_token": "opaque-access", "token_type": "Bearer", "expires_in": 300, "id_token": .string(idToken)],
                    headers: [("Cache-Control", "no-store")])
    }
}
