/// Validation of the request-target (RFC 9112 §3.2) and its split into the
/// raw path and query the router matches on.
enum RequestTarget {
    /// Path and query of a valid target for `method`, or `invalid_target`.
    static func split(_ target: ArraySlice<UInt8>, method: String) throws(HTTPError) -> (path: String, query: String) {
        guard let first = target.first else { throw ParseError.invalidTarget }

        // CONNECT takes only host:port, and host:port is only valid for CONNECT.
        if method == "CONNECT" {
            guard isAuthorityForm(target) else { throw ParseError.invalidTarget }
            return ("", "")
        }
        if target.count == 1 && first == UInt8(ascii: "*") {
            guard method == "OPTIONS" else { throw ParseError.invalidTarget }
            return ("*", "")
        }
        if first == UInt8(ascii: "/") {
            return try pathAndQuery(target)
        }
        return try absoluteForm(target, method: method)
    }

    /// `http://authority/path?query`: proxies send this form and servers
    /// must accept it (RFC 9112 §3.2.2); the authority is not kept.
    private static func absoluteForm(_ target: ArraySlice<UInt8>, method: String) throws(HTTPError) -> (path: String, query: String) {
        guard let colon = target.firstIndex(of: UInt8(ascii: ":")) else { throw ParseError.invalidTarget }
        let scheme = target[..<colon]
        guard ByteClass.equalsLowercased(scheme, "http") || ByteClass.equalsLowercased(scheme, "https") else {
            throw ParseError.invalidTarget
        }
        let afterScheme = target[(colon + 1)...]
        guard afterScheme.starts(with: "//".utf8) else { throw ParseError.invalidTarget }
        let authorityStart = afterScheme.startIndex + 2
        let rest = target[authorityStart...]
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? target.endIndex
        // userinfo is refused: RFC 9110 §4.2.4 asks recipients to treat it as an error.
        guard isAuthority(target[authorityStart..<authorityEnd]) else {
            throw ParseError.invalidTarget
        }
        let pathPart = target[authorityEnd...]
        if pathPart.first == UInt8(ascii: "/") { return try pathAndQuery(pathPart) }
        // An empty path means "/" (or "*" for OPTIONS), RFC 9112 §3.2.2.
        let (_, query) = try pathAndQuery(pathPart)
        return (method == "OPTIONS" ? "*" : "/", query)
    }

    /// Origin-form `absolute-path [ "?" query ]`, checked against RFC 3986
    /// `pchar` (plus `/` and `?`) with well-formed percent-escapes.
    private static func pathAndQuery(_ target: ArraySlice<UInt8>) throws(HTTPError) -> (path: String, query: String) {
        let valid = isEncoded(target) { b in
            ByteClass.isUnreservedOrSubDelim(b) || b == UInt8(ascii: ":") || b == UInt8(ascii: "@")
                || b == UInt8(ascii: "/") || b == UInt8(ascii: "?")
        }
        guard valid else { throw ParseError.invalidTarget }
        guard let q = target.firstIndex(of: UInt8(ascii: "?")) else { return (String(decoding: target, as: UTF8.self), "") }
        return (String(decoding: target[..<q], as: UTF8.self), String(decoding: target[(q + 1)...], as: UTF8.self))
    }

    /// CONNECT's `uri-host ":" port`.
    private static func isAuthorityForm(_ target: ArraySlice<UInt8>) -> Bool {
        guard let colon = target.lastIndex(of: UInt8(ascii: ":")) else { return false }
        let port = target[(colon + 1)...]
        guard !port.isEmpty, port.allSatisfy(ByteClass.isDigit) else { return false }
        return isAuthority(target[..<colon]) && colon > target.startIndex
    }

    /// RFC 3986 authority characters without userinfo (reg-name, IP
    /// literals, port), non-empty.
    private static func isAuthority(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && isEncoded(bytes) { b in
            ByteClass.isUnreservedOrSubDelim(b) || b == UInt8(ascii: ":")
                || b == UInt8(ascii: "[") || b == UInt8(ascii: "]")
        }
    }

    /// Whether every byte is `allowed` or part of a `%` HEXDIG HEXDIG escape.
    private static func isEncoded(_ bytes: ArraySlice<UInt8>, allowed: (UInt8) -> Bool) -> Bool {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex,
                      ByteClass.hexValue(bytes[i + 1]) != nil, ByteClass.hexValue(bytes[i + 2]) != nil else { return false }
                i += 3
            } else {
                guard allowed(bytes[i]) else { return false }
                i += 1
            }
        }
        return true
    }
}
