@testable import API
import Auth
import Core
import Crypto
import HTTP
import Store
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A browser sign-in for tests: whoever the test says is signed in, with a
/// fixed CSRF token. Production code has no such back door; the real one
/// comes from the web sessions.
struct FakeBrowserSignIn: BrowserSignIn {
    var user: UserRecord?
    static let csrf = "csrf-token-for-tests"

    func currentUser(_ request: HTTPRequest) -> BrowserUser? { user.map { BrowserUser(user: $0, csrfToken: Self.csrf) } }

    func loginRedirect(next: String) -> HTTPResponse {
        var r = HTTPResponse(status: 303)
        r.headers.set("Location", "/login?next=" + FormCoding.percentEncode(next))
        return r
    }

    func checkCSRF(_ request: HTTPRequest, submitted: String?) throws(HTTPError) {
        guard submitted == Self.csrf else { throw HTTPError(403, "csrf_failed", "bad CSRF token") }
    }
}

/// `GET`/`POST /oauth/authorize` in process, with `FakeBrowserSignIn`.
final class ConsentFixture {
    let dir: String
    let database: Database
    let service: OAuthService
    let admin: UserRecord
    let viewer: UserRecord
    static let issuer = "https://hub.example"
    static let verifier = String(repeating: "v", count: 50)
    static let challenge = Base64URL.encode(SHA256.hash(verifier))

    init() throws {
        var template = Array("/tmp/pingtxt-consent-XXXXXX".utf8CString)
        dir = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!)! })
        database = try Database(path: dir + "/hub.db")
        service = OAuthService(database: database, clients: OAuthClients(
            extra: [OAuthClient(id: "cli", name: "Terminal <CLI>", redirectURIs: ["https://cli.example/cb?keep=1"])]))
        let users = UserService(database: database)
        admin = try users.create(email: "admin@example.com", name: nil, role: .admin, password: nil)
        viewer = try users.create(email: "viewer@example.com", name: nil, role: .readonly, password: nil)
    }

    deinit {
        database.close()
        for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink(dir + "/" + f) }
        rmdir(dir)
    }

    func routes(_ user: UserRecord?) -> AuthorizeRoutes {
        AuthorizeRoutes(service: service, signIn: FakeBrowserSignIn(user: user), issuer: Self.issuer, hubName: "Test hub")
    }

    static func query(_ overrides: [String: String?] = [:]) -> String {
        var p: [String: String?] = ["response_type": "code", "client_id": "pingtxt-app",
                                    "redirect_uri": "http://127.0.0.1:49152/callback", "code_challenge": challenge,
                                    "code_challenge_method": "S256", "state": "a b&c=d", "scope": "read write"]
        for (k, v) in overrides { p[k] = v }
        return p.sorted { $0.key < $1.key }.compactMap { k, v in v.map { k + "=" + FormCoding.percentEncode($0) } }
            .joined(separator: "&")
    }

    static func get(_ query: String) -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: "GET", target: "/oauth/authorize?" + query, path: "/oauth/authorize",
                                          query: query, version: HTTPVersion(major: 1, minor: 1), headers: HTTPHeaders(),
                                          framing: .none, keepAlive: true, expectsContinue: false),
                    body: [], clientAddress: "127.0.0.1")
    }

    static func post(_ form: String) -> HTTPRequest {
        let body = Array(form.utf8)
        return HTTPRequest(head: HTTPRequestHead(method: "POST", target: "/oauth/authorize", path: "/oauth/authorize", query: "",
                                                 version: HTTPVersion(major: 1, minor: 1),
                                                 headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded")]),
                                                 framing: .contentLength(body.count), keepAlive: true, expectsContinue: false),
                           body: body, clientAddress: "127.0.0.1")
    }

    /// The query items of a redirect's Location.
    static func params(_ r: HTTPResponse) -> [String: String] {
        let location = r.headers["Location"] ?? ""
        guard let q = location.firstIndex(of: "?") else { return [:] }
        var out: [String: String] = [:]
        for (k, v) in FormCoding.decode(String(location[location.index(after: q)...])) { out[k] = v }
        return out
    }
}

@Suite struct OAuthConsentTests {
    func body(_ r: HTTPResponse) -> String { String(decoding: r.body, as: UTF8.self) }

    func expectPageHeaders(_ r: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.headers["X-Frame-Options"] == "DENY", sourceLocation: sourceLocation)
        #expect(r.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true, sourceLocation: sourceLocation)
        #expect(r.headers["Referrer-Policy"] == "no-referrer", sourceLocation: sourceLocation)
        #expect(r.headers["Cache-Control"] == "no-store", sourceLocation: sourceLocation)
    }

    @Test func unknownClientOrRedirectURIIsAnErrorPageWithoutRedirect() throws {
        let f = try ConsentFixture()
        for q in [ConsentFixture.query(["client_id": "nope"]),
                  ConsentFixture.query(["redirect_uri": "https://evil.example/callback"]),
                  ConsentFixture.query(["redirect_uri": "http://127.0.0.1:49152/other", "code_challenge": nil])] {
            let r = try f.routes(f.admin).show(ConsentFixture.get(q))
            #expect(r.status == 400)
            #expect(r.headers["Location"] == nil)
            #expect(r.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(!body(r).contains("evil.example"))
            expectPageHeaders(r)
        }
    }

    @Test func badPKCEIsAnErrorRedirectWithStateAndIss() throws {
        let f = try ConsentFixture()
        for o in [["code_challenge_method": "plain"], ["code_challenge_method": nil], ["code_challenge": nil],
                  ["code_challenge": "short"]] as [[String: String?]] {
            let r = try f.routes(f.admin).show(ConsentFixture.get(ConsentFixture.query(o)))
            #expect(r.status == 303)
            #expect(r.headers["Location"]?.hasPrefix("http://127.0.0.1:49152/callback?") == true)
            let p = ConsentFixture.params(r)
            #expect(p["error"] == "invalid_request")
            #expect(p["state"] == "a b&c=d")
            #expect(p["iss"] == ConsentFixture.issuer)
        }
    }

    @Test func notSignedInGoesToLoginAndBack() throws {
        let f = try ConsentFixture()
        let q = ConsentFixture.query()
        let r = try f.routes(nil).show(ConsentFixture.get(q))
        #expect(r.status == 303)
        #expect(r.headers["Location"] == "/login?next=" + FormCoding.percentEncode("/oauth/authorize?" + q))
    }

    @Test func consentPageForAdminOffersReadAndWriteAndCarriesCSRF() throws {
        let f = try ConsentFixture()
        let r = try f.routes(f.admin).show(ConsentFixture.get(ConsentFixture.query(["client_id": "cli",
                                                                                      "redirect_uri": "https://cli.example/cb?keep=1"])))
        #expect(r.status == 200)
        expectPageHeaders(r)
        let html = body(r)
        #expect(html.contains("Terminal &lt;CLI&gt;"))   // the client's name, escaped
        #expect(html.contains("value=\"write\""))
        #expect(html.contains(FakeBrowserSignIn.csrf))
        #expect(html.contains("value=\"a b&amp;c=d\""))
        // Nothing loaded from anywhere: no scripts, images, stylesheets or fonts.
        #expect(!html.contains("src=") && !html.contains("<link") && !html.contains("url(") && !html.contains("<script"))
    }

    @Test func readonlyUserSeesReadOnlyAndGetsReadEvenIfWriteIsPosted() throws {
        let f = try ConsentFixture()
        let page = body(try f.routes(f.viewer).show(ConsentFixture.get(ConsentFixture.query())))
        #expect(page.contains("read only"))
        #expect(!page.contains("value=\"write\""))
        let form = ConsentFixture.query() + "&csrf_token=\(FakeBrowserSignIn.csrf)&decision=approve&scope_choice=write"
        let r = try f.routes(f.viewer).decide(ConsentFixture.post(form))
        let code = try #require(ConsentFixture.params(r)["code"])
        let t = try f.service.exchange(code: code, verifier: ConsentFixture.verifier, clientID: "pingtxt-app", redirectURI: nil)
        #expect(t.scope == .read)
    }

    @Test func approveRedirectsWithCodeStateAndIss() throws {
        let f = try ConsentFixture()
        let form = ConsentFixture.query() + "&csrf_token=\(FakeBrowserSignIn.csrf)&decision=approve&scope_choice=write"
        let r = try f.routes(f.admin).decide(ConsentFixture.post(form))
        #expect(r.status == 303)
        #expect(r.headers["Location"]?.hasPrefix("http://127.0.0.1:49152/callback?code=") == true)
        let p = ConsentFixture.params(r)
        #expect(p["state"] == "a b&c=d")
        #expect(p["iss"] == ConsentFixture.issuer)
        #expect(r.headers["Location"]?.contains("state=a%20b%26c%3Dd") == true)
        let code: String = try #require(p["code"])
        let t = try f.service.exchange(code: code, verifier: ConsentFixture.verifier,
                                       clientID: "pingtxt-app", redirectURI: "http://127.0.0.1:49152/callback")
        #expect(t.scope == .write)
    }

    @Test func denyRedirectsWithAccessDeniedAndAnExistingQueryIsKept() throws {
        let f = try ConsentFixture()
        let form = ConsentFixture.query(["client_id": "cli", "redirect_uri": "https://cli.example/cb?keep=1"])
            + "&csrf_token=\(FakeBrowserSignIn.csrf)&decision=deny"
        let r = try f.routes(f.admin).decide(ConsentFixture.post(form))
        #expect(r.status == 303)
        #expect(r.headers["Location"]?.hasPrefix("https://cli.example/cb?keep=1&error=access_denied&") == true)
        let p = ConsentFixture.params(r)
        #expect(p["state"] == "a b&c=d" && p["iss"] == ConsentFixture.issuer && p["keep"] == "1")
        #expect(try f.database.read { try $0.scalar("SELECT count(*) FROM oauth_signins") } == .integer(0))
    }

    @Test func wrongOrMissingCSRFIsRefusedWithoutACode() throws {
        let f = try ConsentFixture()
        for extra in ["&csrf_token=wrong&decision=approve", "&decision=approve"] {
            let r = try f.routes(f.admin).decide(ConsentFixture.post(ConsentFixture.query() + extra))
            #expect(r.status == 403)
            #expect(r.headers["Location"] == nil)
            expectPageHeaders(r)
        }
        #expect(try f.database.read { try $0.scalar("SELECT count(*) FROM oauth_signins") } == .integer(0))
    }

    @Test func tamperedHiddenFieldsAreCheckedAgain() throws {
        let f = try ConsentFixture()
        let form = ConsentFixture.query(["redirect_uri": "https://evil.example/cb"])
            + "&csrf_token=\(FakeBrowserSignIn.csrf)&decision=approve"
        let r = try f.routes(f.admin).decide(ConsentFixture.post(form))
        #expect(r.status == 400 && r.headers["Location"] == nil)
    }
}
