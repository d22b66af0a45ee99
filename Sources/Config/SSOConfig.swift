import Core
/// One `[[sso.providers]]` entry: an OpenID Connect provider the login page
/// offers as "Sign in with <name>".
public struct SSOProviderConfig: Sendable, Equatable {
    public var id = ""
    public var name = ""
    /// Exact issuer URL; discovery is `{issuer}/.well-known/openid-configuration`.
    public var issuer = ""
    public var clientID = ""
    /// Never logged, never rendered back (write-only like every secret).
    public var clientSecret = ""
    public var scopes = "openid email profile"
    /// Email domains allowed to sign in (exact match after `@`); empty = any.
    public var allowedDomains: [String] = []
    /// `readonly` or `admin`, for users created on first sign-in.
    public var defaultRole = "readonly"
    public var autoCreate = false
    /// Created users with these emails become admins.
    public var adminEmails: [String] = []
    /// A claim of the ID token listing the user's groups (e.g. `groups`);
    /// "" = not used. Created users in one of `adminGroups` become admins.
    public var adminGroupClaim = ""
    public var adminGroups: [String] = []

    public init() {}
}

extension SSOProviderConfig {
    /// Every key of a provider table, for the loader and the documentation test.
    public static let keys = ["id", "name", "issuer", "client_id", "client_secret", "scopes", "allowed_domains",
                              "default_role", "auto_create", "admin_emails", "admin_group_claim", "admin_groups"]
    static let required = ["id", "name", "issuer", "client_id", "client_secret"]

    mutating func set(_ key: String, _ value: TOMLValue) throws(InvalidValue) {
        func string() throws(InvalidValue) -> String {
            guard let s = value.stringValue else { throw InvalidValue("must be a string, not \(value.typeName)") }
            return s
        }
        func strings() throws(InvalidValue) -> [String] {
            guard let a = value.arrayValue, a.allSatisfy({ $0.stringValue != nil }) else {
                throw InvalidValue("must be an array of strings, not \(value.typeName)")
            }
            return a.map { Validate.trim($0.stringValue!).lowercased() }
        }
        switch key {
        case "id": id = try Validate.clientID(try string())
        case "name": name = try Validate.displayName(try string())
        case "issuer": issuer = try Self.issuerURL(try string())
        case "client_id":
            let s = try string()
            guard !s.isEmpty, !Validate.hasControlCharacters(s) else { throw InvalidValue("must be a non-empty single-line string") }
            clientID = s
        case "client_secret":
            // The value is never echoed: a message about it must not leak it.
            let s = try string()
            guard !s.isEmpty, !Validate.hasControlCharacters(s) else { throw InvalidValue("must be a non-empty single-line string") }
            clientSecret = s
        case "scopes":
            let s = Validate.trim(try string())
            let list = s.split(separator: " ")
            guard list.contains("openid") else { throw InvalidValue("must include openid, got \(TOMLValue.quote(s))") }
            scopes = list.joined(separator: " ")
        case "allowed_domains":
            let list = try strings()
            for d in list where d.isEmpty || d.contains("@") || d.contains(" ") {
                throw InvalidValue("\(TOMLValue.quote(d)) is not a domain (write example.com, without @)")
            }
            allowedDomains = list
        case "default_role":
            let s = try string()
            guard s == "readonly" || s == "admin" else { throw InvalidValue("must be readonly or admin, got \(TOMLValue.quote(s))") }
            defaultRole = s
        case "auto_create":
            guard let b = value.booleanValue else { throw InvalidValue("must be a boolean, not \(value.typeName)") }
            autoCreate = b
        case "admin_emails":
            adminEmails = try strings()
        case "admin_group_claim":
            let s = Validate.trim(try string())
            guard !s.contains(" "), !Validate.hasControlCharacters(s) else { throw InvalidValue("must be a claim name such as groups") }
            adminGroupClaim = s
        case "admin_groups":
            // Group names are compared exactly (not lowercased: providers differ).
            guard let a = value.arrayValue, a.allSatisfy({ $0.stringValue != nil }) else {
                throw InvalidValue("must be an array of strings, not \(value.typeName)")
            }
            adminGroups = a.map { $0.stringValue! }
        default:
            throw InvalidValue("unknown key")
        }
    }

    /// https://, or http:// to a loopback host only (development and tests,
    /// SPEC §9); no query or fragment; a trailing slash is kept because the
    /// `iss` claim must match the configured issuer exactly.
    static func issuerURL(_ raw: String) throws(InvalidValue) -> String {
        let s = Validate.trim(raw)
        let lower = s.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = s.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = s.dropFirst(7)
            let authority = rest.prefix { $0 != "/" }
            var host = String(authority)
            if host.hasPrefix("[") { host = String(host.prefix { $0 != "]" }.dropFirst()) } else if let colon = host.lastIndex(of: ":") {
                host = String(host[..<colon])
            }
            guard LoopbackHost.contains(host) else {
                throw InvalidValue("must be https:// (http:// only to a loopback address), got \(TOMLValue.quote(s))")
            }
        } else {
            throw InvalidValue("must be an https:// URL, got \(TOMLValue.quote(s))")
        }
        guard !rest.isEmpty, !rest.hasPrefix("/"), !s.contains("?"), !s.contains("#"), !s.contains(" "),
              !Validate.hasControlCharacters(s) else {
            throw InvalidValue("must be a plain URL without query or fragment, got \(TOMLValue.quote(s))")
        }
        return s
    }
}


extension ConfigLoader {
    mutating func applySSO(_ value: TOMLValue, at position: TOMLPosition?) {
        let providers = arrayOfTables(value, at: position, section: "sso", key: "providers", noun: "provider")
        for (index, t) in providers.enumerated() {
            let base = "sso.providers[\(index)]"
            var provider = SSOProviderConfig()
            var ok = true
            for key in t.keys {
                do throws(InvalidValue) {
                    guard SSOProviderConfig.keys.contains(key) else {
                        throw InvalidValue("unknown key" + Suggest.hint(key, among: SSOProviderConfig.keys, format: { "\(base).\($0)" }))
                    }
                    try provider.set(key, t[key]!)
                } catch {
                    ok = false
                    issue(t.position(of: key), "\(base).\(key)", error.message)
                }
            }
            for key in SSOProviderConfig.required where t[key] == nil {
                ok = false
                issue(t.position, "\(base).\(key)", "is required")
            }
            if let seen = config.ssoProviders.firstIndex(where: { $0.id == provider.id }), !provider.id.isEmpty {
                ok = false
                issue(t.position(of: "id"), "\(base).id", "duplicate provider id \(TOMLValue.quote(provider.id)) (also sso.providers[\(seen)])")
            }
            if ok { config.ssoProviders.append(provider) }
        }
    }
}

extension HubConfig {
    /// `[[sso.providers]]` as TOML. Like `smtp.password`, the secret is
    /// written as is: `renderTOML` makes a config file, it is never logged.
    func renderSSO() -> String {
        var out = ""
        for p in ssoProviders {
            out += "\n[[sso.providers]]\nid = \(TOMLValue.quote(p.id))\nname = \(TOMLValue.quote(p.name))\n"
            out += "issuer = \(TOMLValue.quote(p.issuer))\nclient_id = \(TOMLValue.quote(p.clientID))\nclient_secret = \(TOMLValue.quote(p.clientSecret))\n"
            out += "scopes = \(TOMLValue.quote(p.scopes))\nallowed_domains = \(TOMLValue.array(p.allowedDomains.map { .string($0) }))\n"
            out += "default_role = \(TOMLValue.quote(p.defaultRole))\nauto_create = \(p.autoCreate)\n"
            out += "admin_emails = \(TOMLValue.array(p.adminEmails.map { .string($0) }))\n"
            out += "admin_group_claim = \(TOMLValue.quote(p.adminGroupClaim))\n"
            out += "admin_groups = \(TOMLValue.array(p.adminGroups.map { .string($0) }))\n"
        }
        return out
    }
}
