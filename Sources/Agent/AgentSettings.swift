import Core
import Net

/// What `pingtxt agent` runs with: the hub, the token, and the knobs the
/// tests turn down (flush interval, backoff) — all plain settings, no test
/// switches.
public struct AgentSettings: Sendable {
    /// Scheme, authority and an optional path prefix, no trailing slash.
    public var hubURL: String
    public var token: String
    /// When set, the hub must report this name for the token.
    public var expectedName: String?
    /// Extra CA certificates (PEM) trusted for the hub and for checks.
    public var extraCAFile: String?
    /// Local address checks connect from (`[checks] source_address`).
    public var sourceAddress: IPAddress?
    /// Checks in flight at once (`[checks] max_concurrent`).
    public var maxConcurrent = 256
    public var version = "0"
    /// Results kept while the hub is unreachable; the oldest go first.
    public var bufferLimit = 10_000
    /// Results per upload (the protocol's maximum is 500).
    public var batchLimit = 500
    /// A result waits at most this long before it is sent.
    public var flushIntervalMillis = 2000
    /// First and largest retry delay after a failed request to the hub.
    public var backoffBaseMillis = 500
    public var backoffMaxMillis = 30_000
    /// On stop, how long the last upload of buffered results may take.
    public var finalUploadMillis = 4000
    /// Timeout of one ordinary request to the hub (long polls get theirs on top).
    public var requestTimeoutMillis = 5000

    public init(hubURL: String, token: String) {
        self.hubURL = hubURL
        self.token = token
    }

    /// Checks a token's shape: `pmg_` and at least a few URL-safe characters.
    public static func validateToken(_ token: String) throws(AgentSettingsError) {
        guard !token.isEmpty else {
            throw AgentSettingsError("an agent token is required: --token pmg_… (or PINGTXT_AGENT_TOKEN)")
        }
        let rest = token.dropFirst(4)
        guard token.hasPrefix("pmg_"), rest.count >= 8, rest.unicodeScalars.allSatisfy({
            switch $0 { case "A"..."Z", "a"..."z", "0"..."9", "-", "_": return true; default: return false }
        }) else {
            throw AgentSettingsError("the agent token must be the pmg_… token shown by POST /api/agents")
        }
    }

    /// Normalises the hub URL: `https://host[:port][/prefix]`. Plain http is
    /// refused except to a loopback address: the token and every result
    /// would otherwise cross the network in clear text.
    public static func normalizeHubURL(_ text: String) throws(AgentSettingsError) -> String {
        guard !text.isEmpty else {
            throw AgentSettingsError("the hub URL is required: --hub https://hub.example.com (or PINGTXT_AGENT_HUB)")
        }
        let lower = text.lowercased()
        let https: Bool
        if lower.hasPrefix("https://") { https = true } else if lower.hasPrefix("http://") { https = false } else {
            throw AgentSettingsError("the hub URL must start with https:// (got \(text))")
        }
        var rest = Substring(text.dropFirst(https ? 8 : 7))
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("?") || rest.contains("#") || rest.contains("@") || rest.contains(" ")
            || rest.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) {
            throw AgentSettingsError("the hub URL must be scheme://host[:port][/path] without query, fragment or user (got \(text))")
        }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        guard let host = Self.host(of: authority) else {
            throw AgentSettingsError("the hub URL has no valid host (got \(text))")
        }
        if !https && !LoopbackHost.contains(host) {
            throw AgentSettingsError("the hub URL must be https:// (http:// is allowed only to a loopback address)")
        }
        return (https ? "https://" : "http://") + authority + path
    }

    /// The host of `host[:port]` / `[v6][:port]`, nil when malformed.
    static func host(of authority: Substring) -> String? {
        var host = authority
        var port: Substring = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            port = after.dropFirst()
            guard IPAddress(literal: String(host))?.isIPv6 == true else { return nil }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        if !port.isEmpty || authority.hasSuffix(":") {
            guard let n = Int(port), (1...65535).contains(n) else { return nil }
        }
        return host.isEmpty ? nil : String(host)
    }

}

/// A setting that keeps the agent from starting; one line for the CLI.
public struct AgentSettingsError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}
