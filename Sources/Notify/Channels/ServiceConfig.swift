import Core
import Net

/// Config validation shared by the paging and chat services of issue 13.
/// Every error names `config.<key>` (the API answers it as `field`).
enum ServiceConfig {
    /// An optional base URL of a service with a fixed public address
    /// (`api_url` of pagerduty, opsgenie, pushover; SPEC §6): the hub appends
    /// the service's own path to it. https only, except http to a loopback
    /// address (a local relay or a test stand-in): a routing key or API key
    /// must not cross a network in clear. No query or fragment, since a path
    /// is appended; trailing slashes are dropped. nil when absent or empty.
    static func apiURL(_ f: JSONFields, _ key: String = "api_url") throws(JSONFieldError) -> String? {
        guard let given = try f.string(key), !given.isEmpty else { return nil }
        let refused = JSONFieldError(field: f.name(key), message: "\(f.name(key)) must be an https:// URL "
                                     + "(http:// only to a loopback address) without query or fragment.")
        guard given.utf8.count <= 2048, !given.contains("?"), !given.contains("#"),
              let u = try? ClientURL.parse(given) else { throw refused }
        guard u.scheme == "https" || LoopbackHost.contains(u.host) else { throw refused }
        return trimmingSlashes(given)
    }

    /// The address of a self-hosted server (gotify `url`, matrix
    /// `homeserver`): http or https (such servers often live on a LAN), no
    /// query or fragment, trailing slashes dropped.
    static func serverURL(_ f: JSONFields, _ key: String) throws(JSONFieldError) -> String {
        let given = try Validate.url(f, key)!
        guard !given.contains("?"), !given.contains("#"), (try? ClientURL.parse(given)) != nil else {
            throw JSONFieldError(field: f.name(key), message: "\(f.name(key)) must be the server's http:// or https:// address "
                                 + "without query or fragment.")
        }
        return trimmingSlashes(given)
    }

    /// A credential or identifier that goes into a header, a path or a JSON
    /// field: 1 to `max` bytes of printable ASCII without spaces. Refused at
    /// save time, so a stray CR/LF can never reach a request head (SPEC §6).
    static func token(_ f: JSONFields, _ key: String, max: Int = 512) throws(JSONFieldError) -> String {
        let s = try f.requiredString(key)
        guard !s.isEmpty, s.utf8.count <= max, s.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw JSONFieldError(field: f.name(key), message: "\(f.name(key)) must be 1 to \(max) printable ASCII characters "
                                 + "without spaces.")
        }
        return s
    }

    /// Exactly `length` ASCII letters and digits (PagerDuty integration
    /// keys, Pushover tokens and user keys).
    static func alphanumeric(_ s: String, length: Int) -> Bool {
        s.utf8.count == length && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
    }


    static func trimmingSlashes(_ u: String) -> String {
        var s = u
        while s.hasSuffix("/") { s.removeLast() }
        return s
    }
}
