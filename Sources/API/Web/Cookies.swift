import HTTP

/// Reading the `Cookie` header and writing `Set-Cookie`.
enum Cookies {
    static let session = "pingtxt_session"
    /// The login form's pre-session CSRF value (double submit: the same
    /// random value in this cookie and in a hidden field). A cross-site page
    /// can make a browser send the cookie but cannot read it to fill the field.
    static let loginCSRF = "pingtxt_csrf"

    /// The first cookie of that name (RFC 6265 §5.4: `a=1; b=2`, possibly over
    /// several Cookie fields).
    static func value(_ name: String, in request: HTTPRequest) -> String? {
        for field in request.headers.values("Cookie") {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard let eq = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<eq] == name {
                    var v = trimmed[trimmed.index(after: eq)...]
                    while v.last == " " || v.last == "\t" { v = v.dropLast() }
                    if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = v.dropFirst().dropLast() }
                    return String(v)
                }
            }
        }
        return nil
    }

    /// A `Set-Cookie` value: always HttpOnly (no script needs it) and
    /// SameSite=Lax (not sent on cross-site POSTs, still sent when a link
    /// from elsewhere opens a page, e.g. the app opening /oauth/authorize).
    /// `maxAge` nil makes a browser-session cookie; 0 deletes it.
    static func header(_ name: String, _ value: String, secure: Bool, maxAge: Int64?, path: String = "/") -> String {
        var s = "\(name)=\(value); Path=\(path); HttpOnly; SameSite=Lax"
        if let maxAge { s += "; Max-Age=\(maxAge)" }
        if secure { s += "; Secure" }
        return s
    }
}
