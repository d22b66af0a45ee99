import HTTP
import Testing

@Suite struct TrustedProxiesTests {
    static let proxies = TrustedProxies { ["10.0.0.1", "10.0.0.2", "::1"].contains($0) }

    static func headers(_ fields: [(String, String)]) -> HTTPHeaders { HTTPHeaders(fields) }

    @Test func defaultTrustsNobody() {
        let p = TrustedProxies()
        #expect(!p.contains("127.0.0.1"))
        let h = Self.headers([("X-Forwarded-For", "1.1.1.1"), ("X-Forwarded-Proto", "https")])
        #expect(p.resolve(peer: "127.0.0.1", headers: h) == ("127.0.0.1", "http"))
    }

    @Test(arguments: [
        [("X-Forwarded-For", "1.1.1.1")],
        [("X-Forwarded-For", "1.1.1.1, 10.0.0.1"), ("X-Forwarded-Proto", "https")],
        [("x-forwarded-proto", "https")],
    ])
    func untrustedPeerHeadersAreIgnored(fields: [(String, String)]) {
        let r = Self.proxies.resolve(peer: "203.0.113.9", headers: Self.headers(fields))
        #expect(r == ("203.0.113.9", "http"))
    }

    @Test func containsAsksTheClosure() {
        #expect(Self.proxies.contains("10.0.0.1"))
        #expect(!Self.proxies.contains("10.0.0.3"))
    }

    @Test(arguments: [
        ([], "10.0.0.1"),
        ([("X-Forwarded-For", "1.1.1.1")], "1.1.1.1"),
        ([("X-Forwarded-For", " 1.1.1.1 ")], "1.1.1.1"),
        ([("X-Forwarded-For", "1.1.1.1, 2.2.2.2")], "2.2.2.2"),            // rightmost untrusted wins
        ([("X-Forwarded-For", "6.6.6.6, 1.1.1.1, 10.0.0.2")], "1.1.1.1"),  // trusted hops are skipped
        ([("X-Forwarded-For", "1.1.1.1,10.0.0.2,\t10.0.0.1")], "1.1.1.1"),
        ([("X-Forwarded-For", "10.0.0.2, 10.0.0.1")], "10.0.0.2"),         // all trusted: the leftmost
        ([("X-Forwarded-For", "2001:db8::1, ::1")], "2001:db8::1"),
        ([("X-Forwarded-For", "1.1.1.1"), ("X-Forwarded-For", "2.2.2.2, 10.0.0.2")], "2.2.2.2"),
        ([("X-Forwarded-For", "2.2.2.2, 10.0.0.2"), ("x-forwarded-for", "10.0.0.1")], "2.2.2.2"),
        ([("X-Forwarded-For", "1.1.1.1"), ("Other", "x"), ("X-Forwarded-For", "3.3.3.3")], "3.3.3.3"),
        ([("X-Forwarded-For", "")], "10.0.0.1"),                          // garbage: nothing usable
        ([("X-Forwarded-For", " , ,\t")], "10.0.0.1"),
        ([("X-Forwarded-For", "1.1.1.1,,")], "1.1.1.1"),
        ([("X-Forwarded-For", "unknown")], "unknown"),                    // taken as sent, not validated
    ] as [([(String, String)], String)])
    func forwardedFor(fields: [(String, String)], client: String) {
        #expect(Self.proxies.resolve(peer: "10.0.0.1", headers: Self.headers(fields)).address == client)
    }

    @Test(arguments: [
        ([], "http"),
        ([("X-Forwarded-Proto", "https")], "https"),
        ([("X-Forwarded-Proto", "HTTPS")], "https"),
        ([("X-Forwarded-Proto", " https ")], "https"),
        ([("X-Forwarded-Proto", "http")], "http"),
        ([("X-Forwarded-Proto", "http, https")], "https"),     // the last value (nearest proxy) counts
        ([("X-Forwarded-Proto", "https, http")], "http"),
        ([("X-Forwarded-Proto", "http"), ("X-Forwarded-Proto", "https")], "https"),
        ([("X-Forwarded-Proto", "https"), ("X-Forwarded-Proto", "http")], "http"),
        ([("X-Forwarded-Proto", "https"), ("X-Forwarded-Proto", "")], "https"),   // empty elements are ignored
        ([("X-Forwarded-Proto", "https, ")], "https"),
        ([("X-Forwarded-Proto", "https,")], "https"),
        ([("X-Forwarded-Proto", "ftp"), ("X-Forwarded-Proto", "https")], "https"),
        ([("X-Forwarded-Proto", "ftp")], "http"),                // garbage → http
        ([("X-Forwarded-Proto", "https, wss")], "http"),
        ([("X-Forwarded-Proto", "")], "http"),
        ([("X-Forwarded-Proto", "httpsx")], "http"),
    ] as [([(String, String)], String)])
    func forwardedProto(fields: [(String, String)], scheme: String) {
        #expect(Self.proxies.resolve(peer: "10.0.0.1", headers: Self.headers(fields)).scheme == scheme)
    }
}
