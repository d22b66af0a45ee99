import Core
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Helpers for the admin page tests: a signed-in browser, form posts with
/// the session's CSRF token, and looking into the HTML that came back.
enum Pages {
    /// A browser signed in as `email` (the first-start admin by default).
    static func signedIn(_ hub: HubProcess, email: String = HubProcess.adminEmail,
                         password: String = HubProcess.adminPassword) throws -> Browser {
        let b = Browser(hub)
        let r = try b.login(email: email, password: password)
        guard r.status == 303 else { throw HarnessError("login failed: \(r.status) \(r.text)") }
        return b
    }

    /// POSTs `form` plus the session's CSRF token.
    static func submit(_ b: Browser, _ target: String, _ form: [(String, String)]) throws -> WireResponse {
        try b.post(target, form: [("csrf_token", try b.sessionCSRF())] + form)
    }

    /// The text between `start` and the next `end` after it.
    static func between(_ html: String, _ start: String, _ end: String) -> String? {
        let text = Substring(html)
        guard let a = text.range(of: start) else { return nil }
        let rest = text[a.upperBound...]
        guard let b = rest.range(of: end) else { return nil }
        return String(rest[..<b.lowerBound])
    }

    static func count(_ needle: String, in html: String) -> Int {
        var n = 0
        var rest = Substring(html)
        while let r = rest.range(of: needle) {
            n += 1
            rest = rest[r.upperBound...]
        }
        return n
    }

    /// Polls (bounded) until `done` holds.
    static func waitUntil(_ what: String, timeoutMillis: Int = 15_000, _ done: () throws -> Bool) rethrows {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while try !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
            usleep(50_000)
        }
    }

    /// Makes a readonly user through the API with an admin token.
    static func addViewer(_ hub: HubProcess, email: String = "viewer@example.com") throws {
        _ = try expectJSON(try hub.call("POST", "/api/users", token: try hub.token(),
                                        json: ["email": .string(email), "role": "readonly", "password": "viewer-password"]), 201)
    }
}
