/// One `[[sso.providers]]` entry as the API layer uses it (the executable
/// copies it from the config, like the OAuth clients).
public struct SSOProviderSettings: Sendable {
    public var id: String
    public var name: String
    public var issuer: String
    public var clientID: String
    /// Sent to the token endpoint only; never logged or rendered.
    public var clientSecret: String
    public var scopes = "openid email profile"
    public var allowedDomains: [String] = []
    public var defaultRole = "readonly"
    public var autoCreate = false
    public var adminEmails: [String] = []
    public var adminGroupClaim = ""
    public var adminGroups: [String] = []

    public init(id: String, name: String, issuer: String, clientID: String, clientSecret: String) {
        self.id = id
        self.name = name
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
    }
}
