import Core
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A running hub whose config declares one SSO provider, `fake`, pointing
/// at a `FakeOIDCProvider` on loopback.
final class SSOHarness {
    let provider: FakeOIDCProvider
    let hub: HubProcess
    private let configDir: String

    init(autoCreate: Bool = true, allowedDomains: [String] = ["example.com"], adminEmails: [String] = ["boss@example.com"],
         logFormat: String = "text", ecKey: TestSigningKey? = nil) throws {
        guard let provider = FakeOIDCProvider(ecKey: ecKey) else { throw HarnessError("fake OpenID provider did not start (openssl CLI?)") }
        self.provider = provider
        var template = Array("/tmp/pingtxt-sso-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw HarnessError("mkdtemp") }
        configDir = String(cString: made)
        func list(_ items: [String]) -> String { "[" + items.map { JSON.string($0).text }.joined(separator: ", ") + "]" }
        let config = """
        [[sso.providers]]
        id = "fake"
        name = "Fake IdP"
        issuer = "\(provider.issuer)"
        client_id = "\(provider.clientID)"
        client_secret = "\(provider.clientSecret)"
        allowed_domains = \(list(allowedDomains))
        auto_create = \(autoCreate)
        admin_emails = \(list(adminEmails))
        admin_group_claim = "groups"
        admin_groups = ["hub-admins"]

        """
        let path = configDir + "/config.toml"
        writeFile(path, config)
        hub = try HubProcess(arguments: ["--config", path, "--log-format", logFormat])
    }

    deinit { Sandbox.removeTree(configDir) }

    /// Click "Sign in with Fake IdP": hub → provider (auto-approves) →
    /// callback. Returns the callback's answer.
    func signIn(_ browser: Browser, next: String = "/") throws -> WireResponse {
        let start = try browser.get("/login/sso/fake?next=" + FormEncode.encode(next))
        guard start.status == 302, let location = start.header("Location"), location.hasPrefix(provider.issuer) else {
            return start   // an error page (provider unreachable, …)
        }
        let approve = try WireClient(port: provider.port).request("GET", String(location.dropFirst(provider.issuer.count)))
        guard approve.status == 302, let back = approve.header("Location") else {
            throw HarnessError("provider refused the authorize request: \(approve.status) \(approve.text)")
        }
        let hubBase = "http://127.0.0.1:\(hub.port)"
        guard back.hasPrefix(hubBase + "/login/sso/fake/callback?") else { throw HarnessError("unexpected redirect \(back)") }
        return try browser.get(String(back.dropFirst(hubBase.count)))
    }

    /// The callback target the provider would send the browser to, without
    /// following it (for replay and cross-browser tests).
    func callbackTarget(_ browser: Browser) throws -> String {
        let start = try browser.get("/login/sso/fake")
        guard let location = start.header("Location") else { throw HarnessError("no redirect: \(start.status)") }
        let approve = try WireClient(port: provider.port).request("GET", String(location.dropFirst(provider.issuer.count)))
        guard let back = approve.header("Location") else { throw HarnessError("provider refused: \(approve.status)") }
        return String(back.dropFirst("http://127.0.0.1:\(hub.port)".count))
    }
}
