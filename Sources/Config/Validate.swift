/// Validation of string values that are not addresses.
enum Validate {
    static func trim(_ s: String) -> String {
        var sub = Substring(s)
        while let c = sub.first, c == " " || c == "\t" || c == "\n" || c == "\r" { sub.removeFirst() }
        while let c = sub.last, c == " " || c == "\t" || c == "\n" || c == "\r" { sub.removeLast() }
        return String(sub)
    }

    static func hasControlCharacters(_ s: String) -> Bool {
        s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// `http(s)://host[:port]`, an optional single trailing "/" is dropped;
    /// paths, queries, fragments and user info are rejected.
    static func publicURL(_ s: String) throws(InvalidValue) -> String {
        let lower = s.lowercased()
        let scheme: String
        if lower.hasPrefix("http://") { scheme = "http" } else if lower.hasPrefix("https://") { scheme = "https" } else {
            throw InvalidValue("must start with http:// or https://, got \(TOMLValue.quote(s))")
        }
        var rest = Substring(s.dropFirst(scheme.count + 3))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("?") || rest.contains("#") { throw InvalidValue("must not have a query or fragment") }
        if rest.contains("/") { throw InvalidValue("must not have a path (the hub is served at the root of its host)") }
        if rest.contains("@") { throw InvalidValue("must not contain user info") }
        guard !rest.isEmpty else { throw InvalidValue("is missing a host") }
        if hasControlCharacters(s) || s.contains(" ") { throw InvalidValue("must not contain spaces or control characters") }
        // The authority has the same shape as a listen address, with an optional port.
        let hostOnly = !(rest.hasPrefix("[") ? rest.contains("]:") : rest.contains(":"))
        do {
            _ = try ListenAddress(parsing: hostOnly ? "\(rest):0" : String(rest))
        } catch {
            throw InvalidValue("has an invalid host or port: \(TOMLValue.quote(s))")
        }
        return scheme + "://" + rest
    }

    static func path(_ s: String) throws(InvalidValue) -> String {
        guard !s.isEmpty else { throw InvalidValue("must not be empty") }
        if hasControlCharacters(s) { throw InvalidValue("must not contain control characters") }
        return s
    }

    static func displayName(_ s: String) throws(InvalidValue) -> String {
        guard !trim(s).isEmpty else { throw InvalidValue("must not be empty") }
        guard s.count <= 100 else { throw InvalidValue("must be at most 100 characters") }
        if hasControlCharacters(s) { throw InvalidValue("must not contain control characters") }
        return s
    }

    /// Empty (the kernel chooses) or a numeric IPv4/IPv6 address, no brackets.
    static func sourceAddress(_ s: String) throws(InvalidValue) -> String {
        guard !s.isEmpty else { return s }
        guard IPNetwork.parseAddress(s) != nil else {
            throw InvalidValue("must be an IP address of this host (e.g. \"192.0.2.10\" or \"2001:db8::10\") or empty, got \(TOMLValue.quote(s))")
        }
        return s
    }

    /// Free text without control characters (may be empty). Agent settings
    /// are checked in full by `pingtxt agent`, which reports them in one line.
    static func plainText(_ s: String) throws(InvalidValue) -> String {
        if hasControlCharacters(s) { throw InvalidValue("must not contain control characters") }
        return s
    }

    /// A check location name: `[A-Za-z0-9_-]{1,64}` (it appears in results and alerts).
    static func locationName(_ s: String) throws(InvalidValue) -> String {
        guard !s.isEmpty, s.count <= 64, s.unicodeScalars.allSatisfy({
            switch $0 { case "A"..."Z", "a"..."z", "0"..."9", "_", "-": return true; default: return false }
        }) else {
            throw InvalidValue("must be 1-64 characters of A-Z a-z 0-9 _ -, got \(TOMLValue.quote(s))")
        }
        return s
    }

    /// `[A-Za-z0-9._-]{1,100}`; `pingtxt-app` is the built-in client.
    static func clientID(_ s: String) throws(InvalidValue) -> String {
        guard !s.isEmpty, s.count <= 100, s.unicodeScalars.allSatisfy({
            switch $0 { case "A"..."Z", "a"..."z", "0"..."9", ".", "_", "-": return true; default: return false }
        }) else {
            throw InvalidValue("must be 1-100 characters of A-Z a-z 0-9 . _ -, got \(TOMLValue.quote(s))")
        }
        guard s != "pingtxt-app" else { throw InvalidValue("\"pingtxt-app\" is the built-in client and cannot be redefined") }
        return s
    }

    /// An absolute URI with a scheme (`com.example.app:/cb`, `https://…`), no fragment.
    static func redirectURI(_ s: String) throws(InvalidValue) -> String {
        guard let colon = s.firstIndex(of: ":"), colon != s.startIndex,
              s[..<colon].unicodeScalars.first.map({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) }) == true,
              s[..<colon].unicodeScalars.allSatisfy({
                  switch $0 { case "A"..."Z", "a"..."z", "0"..."9", "+", "-", ".": return true; default: return false }
              })
        else { throw InvalidValue("\(TOMLValue.quote(s)) is not an absolute URI with a scheme") }
        let rest = s[s.index(after: colon)...]
        guard !rest.isEmpty else { throw InvalidValue("\(TOMLValue.quote(s)) has nothing after the scheme") }
        if s.contains("#") { throw InvalidValue("\(TOMLValue.quote(s)) must not contain a fragment") }
        if hasControlCharacters(s) || s.contains(" ") { throw InvalidValue("\(TOMLValue.quote(s)) must not contain spaces or control characters") }
        let scheme = s[..<colon].lowercased()
        if scheme == "http" || scheme == "https" {
            guard rest.hasPrefix("//"), rest.count > 2, !rest.dropFirst(2).hasPrefix("/") else {
                throw InvalidValue("\(TOMLValue.quote(s)) is missing a host")
            }
        }
        return s
    }

    // MARK: [smtp]

    /// A host name, IPv4 or IPv6 address (brackets optional), or "" (not configured).
    static func mailHost(_ s: String) throws(InvalidValue) -> String {
        if s.isEmpty { return s }
        let bare = s.hasPrefix("[") && s.hasSuffix("]") ? String(s.dropFirst().dropLast()) : s
        guard !bare.isEmpty, bare.count <= 253, bare.unicodeScalars.allSatisfy({
            switch $0 { case "A"..."Z", "a"..."z", "0"..."9", ".", "-", "_", ":": return true; default: return false }
        }) else {
            throw InvalidValue("must be a host name or IP address (no scheme, port or path), got \(TOMLValue.quote(s))")
        }
        return s
    }

    /// Any text without line breaks or other control characters (they would
    /// end an SMTP command early).
    static func singleLine(_ s: String) throws(InvalidValue) -> String {
        guard s.count <= 1024 else { throw InvalidValue("must be at most 1024 characters") }
        if hasControlCharacters(s) { throw InvalidValue("must not contain control characters") }
        return s
    }

    /// A bare `local@domain` (no display name, no `<>`), or "".
    static func mailAddress(_ s: String) throws(InvalidValue) -> String {
        if s.isEmpty { return s }
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        guard s.count <= 254, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
              s.utf8.allSatisfy({ $0 > 32 && $0 < 127 && !Array("<>,;:\"()[]\\".utf8).contains($0) }) else {
            throw InvalidValue("must be a plain address like \"pingtxt@example.com\", got \(TOMLValue.quote(s))")
        }
        return s
    }

    /// A host name for EHLO (`[A-Za-z0-9.-]`), or "".
    static func heloName(_ s: String) throws(InvalidValue) -> String {
        guard s.count <= 253, s.unicodeScalars.allSatisfy({
            switch $0 { case "A"..."Z", "a"..."z", "0"..."9", ".", "-": return true; default: return false }
        }) else {
            throw InvalidValue("must be a host name (A-Z a-z 0-9 . -), got \(TOMLValue.quote(s))")
        }
        return s
    }
}
