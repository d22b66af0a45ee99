import Auth
import Config
import Core

/// What the API layer needs from the configuration; the executable fills it
/// so this module does not depend on how configuration is read (it uses
/// Config's value types, such as `SSOProviderConfig`, not its loader).
public struct APISettings: Sendable {
    public var hubName: String = "pingtxt hub"
    public var publicURL: String = "http://127.0.0.1:8080"
    /// `/metrics` without a token.
    public var metricsPublic: Bool = false
    public var version: String = PingtxtVersion.current
    /// `/healthz`'s `database`: the engine the hub runs on (SPEC §14).
    public var databaseEngine: DatabaseEngine = .sqlite
    /// `/healthz`'s `node`: this hub's id when several share the database.
    public var nodeID: String?
    /// Public OAuth clients from `[[oauth.clients]]`, besides the built-in app.
    public var oauthClients: [OAuthClient] = []
    /// `[[sso.providers]]`: OpenID Connect sign-in buttons on the login page.
    public var ssoProviders: [SSOProviderConfig] = []
    /// An extra CA file trusted when talking to SSO providers (`[checks] ca_file`).
    public var ssoExtraCAFile: String?
    /// `[auth] phone_approval`: offer approving a web sign-in on the phone (SPEC §11).
    public var phoneApproval: Bool = true
    /// `[mobile] max_devices_per_user`: enrolling one more phone removes the
    /// user's least recently seen one (SPEC §10).
    public var maxDevicesPerUser: Int = 10
    /// `[status_pages] cache_seconds`: a built public status page is served
    /// this long (`StatusPageCache`); 0 builds every request.
    public var statusPageCacheSeconds: Int = 10

    public init() {}

    /// The OAuth issuer (RFC 8414 / RFC 9207): the public URL without a
    /// trailing slash, so endpoint URLs and `iss` compare exactly.
    public var issuer: String {
        var url = Substring(publicURL)
        while url.hasSuffix("/") { url = url.dropLast() }
        return String(url)
    }
}

public enum PingtxtVersion {
    public static let current = "0.1.0"
}
