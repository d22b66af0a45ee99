import Core

/// A minimal browser for the sign-in tests: a cookie jar fed from
/// `Set-Cookie` (parsed here, attributes kept for assertions), form posts,
/// and the hidden CSRF field read out of pages.
final class Browser {
    struct Cookie {
        var value: String
        var attributes: [String]   // lowercased, e.g. "httponly", "samesite=lax", "max-age=604800"
    }

    let hub: HubProcess
    var jar: [String: Cookie] = [:]

    init(_ hub: HubProcess) { self.hub = hub }

    /// Every `Set-Cookie` of a response, by cookie name.
    static func setCookies(_ r: WireResponse) -> [String: Cookie] {
        var out: [String: Cookie] = [:]
        for field in r.headers where field.name.lowercased() == "set-cookie" {
            let parts = field.value.split(separator: ";").map { $0.drop { $0 == " " } }
            guard let first = parts.first, let eq = first.firstIndex(of: "=") else { continue }
            out[String(first[..<eq])] = Cookie(value: String(first[first.index(after: eq)...]),
                                               attributes: parts.dropFirst().map { $0.lowercased() })
        }
        return out
    }

    func absorb(_ r: WireResponse) {
        for (name, c) in Self.setCookies(r) {
            if c.attributes.contains("max-age=0") { jar[name] = nil } else { jar[name] = c }
        }
    }

    var cookieHeader: [(String, String)] {
        jar.isEmpty ? [] : [("Cookie", jar.map { "\($0.key)=\($0.value.value)" }.sorted().joined(separator: "; "))]
    }

    func get(_ target: String) throws -> WireResponse {
        let r = try hub.connect().request("GET", target, headers: cookieHeader)
        absorb(r)
        return r
    }

    func post(_ target: String, form: [(String, String)], headers: [(String, String)] = []) throws -> WireResponse {
        let body = form.map { "\(FormEncode.encode($0.0))=\(FormEncode.encode($0.1))" }.joined(separator: "&")
        let r = try hub.connect().request("POST", target, headers: cookieHeader + headers
            + [("Content-Type", "application/x-www-form-urlencoded"), ("Origin", "null")], body: Array(body.utf8))
        absorb(r)
        return r
    }

    /// An API call with the session cookie (and the CSRF header when given).
    func api(_ method: String, _ target: String, json: JSON? = nil, csrf: String? = nil) throws -> WireResponse {
        var h = cookieHeader
        if let csrf { h.append(("X-CSRF-Token", csrf)) }
        var body: [UInt8]?
        if let json { h.append(("Content-Type", "application/json")); body = json.serialized() }
        return try hub.connect().request(method, target, headers: h, body: body)
    }

    /// The value of the hidden `csrf_token` field of a page.
    static func csrfField(_ html: String) -> String? {
        let marker = "name=\"csrf_token\" value=\""
        let text = Substring(html)
        guard let r = text.range(of: marker) else { return nil }
        return String(text[r.upperBound...].prefix { $0 != "\"" })
    }

    /// GET /login, then POST the form; returns the POST's answer.
    @discardableResult
    func login(email: String = HubProcess.adminEmail, password: String = HubProcess.adminPassword,
               next: String = "/") throws -> WireResponse {
        let page = try get("/login?next=" + FormEncode.encode(next))
        guard let csrf = Self.csrfField(page.text) else { throw HarnessError("no csrf field in /login: \(page.text)") }
        return try post("/login", form: [("csrf_token", csrf), ("next", next), ("email", email), ("password", password)])
    }

    /// The session's CSRF token, read from the signed-in page `/`.
    func sessionCSRF() throws -> String {
        let page = try get("/")
        guard page.status == 200, let csrf = Self.csrfField(page.text) else { throw HarnessError("not signed in: \(page.status)") }
        return csrf
    }
}

enum FormEncode {
    static func encode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
