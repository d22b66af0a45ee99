/// Write-only secrets (SPEC §6): what a read shows in their place, and how
/// a write that sends that back keeps the stored value.
///
/// A secret value reads as `********`; a URL that is itself the credential
/// (a Slack or Teams webhook) reads as its scheme and host with the rest
/// masked, so a person can still tell which service it points at. Header
/// maps (monitor `http.headers`, webhook `headers`) mask the values of
/// credential headers only.
public enum SecretMask {
    public static let mask = "********"

    /// `https://hooks.slack.com/********` for a URL credential.
    public static func url(_ u: String) -> String {
        let parts = u.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        // "https:", "", "host", "rest…"
        guard parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return mask }
        let host = parts[2].prefix { $0 != "?" && $0 != "#" }
        // Userinfo would be a credential too: keep only what follows "@".
        let bareHost = host.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        return parts[0] + "//" + bareHost + "/" + mask
    }

    /// Whether what a client sent for a secret means "keep the stored value":
    /// the key left out, the mask, or (for URL credentials) the masked URL
    /// as reads show it.
    public static func keepsStored(_ given: JSON?, stored: JSON?, isURL: Bool) -> Bool {
        guard let given else { return true }
        guard case .string(let s) = given else { return false }
        if s == mask { return true }
        if isURL, case .string(let old)? = stored, s == url(old) { return true }
        return false
    }

    /// Header names whose values are credentials: `Authorization`,
    /// `Cookie`, `Proxy-Authorization`, or any name containing `token`,
    /// `secret`, `key` or `password` (case-insensitive).
    public static func isCredentialHeader(_ name: String) -> Bool {
        let n = name.lowercased()
        if ["authorization", "cookie", "proxy-authorization"].contains(n) { return true }
        return ["token", "secret", "key", "password"].contains { n.contains($0) }
    }

    /// The header map with credential values masked.
    public static func maskHeaders(_ headers: JSONObject) -> JSONObject {
        JSONObject(headers.entries.map { (k, v) in (k, isCredentialHeader(k) && v != .null ? JSON.string(mask) : v) })
    }

    /// `given` with every credential header whose value is the mask put
    /// back to the stored value of that header (names compared
    /// case-insensitively). A mask with no stored value to stand for is
    /// kept as the literal value it then is.
    public static func restoreHeaders(_ given: JSONObject, stored: JSONObject) -> JSONObject {
        JSONObject(given.entries.map { (k, v) in
            guard isCredentialHeader(k), v == .string(mask),
                  let old = stored.entries.first(where: { $0.key.lowercased() == k.lowercased() })?.value else { return (k, v) }
            return (k, old)
        })
    }
}
