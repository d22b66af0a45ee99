/// A public OAuth client (no secret: PKCE is what binds the code to it).
public struct OAuthClient: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Exact redirect URIs.
    public var redirectURIs: [String]
    /// Also accept `http://127.0.0.1:{port}/callback` and
    /// `http://[::1]:{port}/callback` on any port (RFC 8252 §7.3: a native
    /// app listens on whatever port the OS gives it).
    public var loopbackCallback: Bool

    public init(id: String, name: String, redirectURIs: [String], loopbackCallback: Bool = false) {
        self.id = id
        self.name = name
        self.redirectURIs = redirectURIs
        self.loopbackCallback = loopbackCallback
    }

    /// The mobile app, known to every hub without registration.
    public static let app = OAuthClient(id: "pingtxt-app", name: "pingtxt app",
                                        redirectURIs: ["com.pingtxt.app:/oauth/callback"], loopbackCallback: true)

    /// Exact string comparison (RFC 9700 §4.1.3), except the loopback port.
    public func allows(redirectURI uri: String) -> Bool {
        if redirectURIs.contains(uri) { return true }
        return loopbackCallback && Self.isLoopbackCallback(uri)
    }

    /// `http://127.0.0.1[:port]/callback` or `http://[::1][:port]/callback`,
    /// nothing else: no query, no fragment, no other path, no `localhost`
    /// (a name can resolve elsewhere; RFC 8252 §8.3).
    static func isLoopbackCallback(_ uri: String) -> Bool {
        for host in ["http://127.0.0.1", "http://[::1]"] where uri.hasPrefix(host) {
            var rest = Substring(uri.dropFirst(host.count))
            if rest.first == ":" {
                rest = rest.dropFirst()
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                guard (1...5).contains(digits.count), let port = Int(digits), (1...65535).contains(port) else { return false }
                rest = rest.dropFirst(digits.count)
            }
            return rest == "/callback"
        }
        return false
    }
}

/// The built-in app plus the clients from `[[oauth.clients]]`. A config
/// client cannot take the app's id (that would let a config line change
/// where the app's codes go).
public struct OAuthClients: Sendable {
    public let all: [OAuthClient]

    public init(extra: [OAuthClient] = []) {
        all = [OAuthClient.app] + extra.filter { $0.id != OAuthClient.app.id }
    }

    public func find(_ id: String) -> OAuthClient? { all.first { $0.id == id } }
}
