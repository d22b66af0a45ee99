#if canImport(Glibc)
import Glibc
#endif
import Auth
import Crypto
import Store
import TestSupport
import Synchronization

/// A hub database in a fresh temporary directory, an admin and a readonly
/// user, and an OAuth service on a clock the test moves.
final class OAuthFixture: Sendable {
    let dir: String
    let database: Database
    let clock = ManualClock(1_800_000_000)
    let service: OAuthService
    let authenticator: Authenticator
    let admin: UserRecord
    let viewer: UserRecord

    init(_ engine: TestEngine, extraClients: [OAuthClient] = []) throws {
        var template = Array("/tmp/pingtxt-oauth-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        dir = String(cString: p!)
        database = try engine.open(in: dir, readers: 4)
        let clock = self.clock
        service = OAuthService(database: database, clients: OAuthClients(extra: extraClients), clock: { clock.now })
        authenticator = Authenticator(database: database, clock: { clock.now })
        let users = UserService(database: database)
        admin = try users.create(email: "admin@example.com", name: nil, role: .admin, password: nil)
        viewer = try users.create(email: "viewer@example.com", name: nil, role: .readonly, password: nil)
    }

    deinit {
        database.close()
        for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink(dir + "/" + f) }
        rmdir(dir)
    }

    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = Base64URL.encode(SHA256.hash(verifier))
    static let redirect = "com.pingtxt.app:/oauth/callback"

    /// A checked authorization request for the app.
    func request(scope: String? = nil, redirect: String = OAuthFixture.redirect) -> AuthorizeRequest {
        var items: [(name: String, value: String)] = [
            ("response_type", "code"), ("client_id", "pingtxt-app"), ("redirect_uri", redirect),
            ("code_challenge", Self.challenge), ("code_challenge_method", "S256"), ("state", "xyz")]
        if let scope { items.append(("scope", scope)) }
        guard case .ok(let r) = OAuthAuthorize.check(items, clients: service.clients) else {
            fatalError("fixture request was refused")
        }
        return r
    }

    func code(for user: UserRecord? = nil, scope: Scope = .write) throws -> String {
        try service.approve(user: user ?? admin, request: request(), scope: scope)
    }

    func tokens(for user: UserRecord? = nil, scope: Scope = .write) throws -> OAuthTokens {
        try service.exchange(code: try code(for: user, scope: scope), verifier: Self.verifier,
                             clientID: "pingtxt-app", redirectURI: Self.redirect)
    }

    func works(_ accessToken: String) -> Bool {
        (try? authenticator.authenticate(bearer: accessToken)) != nil
    }
}

final class ManualClock: Sendable {
    private let value: Atomic<Int64>
    init(_ start: Int64) { value = Atomic(start) }
    var now: Int64 { value.load(ordering: .sequentiallyConsistent) }
    func advance(_ seconds: Int64) { _ = value.add(seconds, ordering: .sequentiallyConsistent) }
}

/// Runs `body` on `count` real threads released together, and waits.
func raceOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Box: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var threads: [pthread_t] = []
    let started = StartGate(count)
    for i in 0..<count {
        let box = Unmanaged.passRetained(Box { started.arriveAndWait(); body(i) }).toOpaque()
        var t = pthread_t()
        let rc = pthread_create(&t, nil, { arg in
            Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().run()
            return nil
        }, box)
        precondition(rc == 0)
        threads.append(t)
    }
    for t in threads { pthread_join(t, nil) }
}

/// All threads spin until every one has arrived, so they start together.
final class StartGate: Sendable {
    private let arrived = Atomic<Int>(0)
    private let total: Int
    init(_ total: Int) { self.total = total }
    func arriveAndWait() {
        arrived.add(1, ordering: .sequentiallyConsistent)
        while arrived.load(ordering: .sequentiallyConsistent) < total { sched_yield() }
    }
}
