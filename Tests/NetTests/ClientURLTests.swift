@testable import Net
import Testing

@Suite struct ClientURLTests {
    @Test func parsesAbsoluteURLs() throws {
        let u = try ClientURL.parse("HTTPS://Example.COM:8443/a/b?x=1#frag")
        #expect(u.scheme == "https" && u.host == "example.com" && u.port == 8443 && u.target == "/a/b?x=1")
        #expect(u.hostHeader == "example.com:8443")
        let d = try ClientURL.parse("http://example.com")
        #expect(d.port == 80 && d.target == "/" && d.hostHeader == "example.com")
        let q = try ClientURL.parse("http://example.com?x")
        #expect(q.target == "/?x")
        let v6 = try ClientURL.parse("http://[::1]:8080/p")
        #expect(v6.host == "::1" && v6.isIPv6Literal && v6.hostHeader == "[::1]:8080" && v6.description == "http://[::1]:8080/p")
        let v6d = try ClientURL.parse("https://[2001:DB8::1]/")
        #expect(v6d.host == "2001:db8::1" && v6d.port == 443 && v6d.hostHeader == "[2001:db8::1]")
    }

    @Test(arguments: ["ftp://x/", "http:/x", "http://", "http://a b/", "http://user:pw@host/", "http://host:0/",
                      "http://host:65536/", "http://host:12a/", "http://[::1/", "http://[zz]/", "example.com", "http://ho$t/"])
    func refusesBadURLs(_ text: String) {
        #expect(throws: ClientFailure.self) { try ClientURL.parse(text) }
    }

    @Test(arguments: [
        // RFC 3986 §5.4 examples, base http://a/b/c/d;p?q
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g/"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q"),
        ("g#s", "http://a/b/c/g"), (";x", "http://a/b/c/;x"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"),
        ("../..", "http://a/"), ("../../g", "http://a/g"), ("../../../g", "http://a/g"), ("/./g", "http://a/g"),
        ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"),
        ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("https://other:444/x", "https://other:444/x"),
    ])
    func resolvesReferences(_ ref: String, _ expected: String) throws {
        let base = try ClientURL.parse("http://a/b/c/d;p?q")
        #expect(try base.resolve(ref).description == expected)
    }

    @Test func encodesRequests() throws {
        var r = ClientRequest(url: "http://h:81/p?q")
        r.method = "POST"
        r.body = Array("abc".utf8)
        r.headers = [("X-A", "1"), ("Connection", "keep-alive"), ("Accept", "text/plain")]
        let text = String(decoding: encodeRequest(r, url: try ClientURL.parse(r.url)), as: UTF8.self)
        #expect(text == "POST /p?q HTTP/1.1\r\nHost: h:81\r\nX-A: 1\r\nAccept: text/plain\r\nUser-Agent: pingtxt/0.1\r\n"
            + "Content-Length: 3\r\nConnection: close\r\n\r\nabc")
    }
}
