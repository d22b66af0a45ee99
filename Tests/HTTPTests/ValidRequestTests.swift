import HTTP
import Testing

/// A request (or several pipelined ones) that must parse, with the events it must produce.
struct ValidCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: [UInt8]
    var expected: [HTTPParserEvent]
    var testDescription: String { name }

    init(_ name: String, _ text: String, _ expected: [HTTPParserEvent]) {
        self.init(name, Array(text.utf8), expected)
    }

    init(_ name: String, _ input: [UInt8], _ expected: [HTTPParserEvent]) {
        self.name = name
        self.input = input
        self.expected = expected
    }
}

let validCases: [ValidCase] = [
    ValidCase("GET with query", "GET /api/me?x=1&y=%2F HTTP/1.1\r\nHost: example.com\r\nUser-Agent: t/1\r\n\r\n",
              request(head("GET", "/api/me?x=1&y=%2F", path: "/api/me", query: "x=1&y=%2F",
                           headers: [("Host", "example.com"), ("User-Agent", "t/1")]))),
    ValidCase("POST with Content-Length",
              "POST /p HTTP/1.1\r\nHost: example.com\r\nContent-Length: 11\r\n\r\nhello world",
              request(head("POST", "/p", headers: [("Host", "example.com"), ("Content-Length", "11")],
                           framing: .contentLength(11)), body: "hello world")),
    ValidCase("Content-Length 0", "POST /p HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n",
              request(head("POST", "/p", headers: [("Host", "example.com"), ("Content-Length", "0")],
                           framing: .contentLength(0)))),
    ValidCase("Content-Length list and duplicate with the same value",
              "PUT /p HTTP/1.1\r\nHost: example.com\r\nContent-Length: 3, 3\r\nContent-Length: 003\r\n\r\nabc",
              request(head("PUT", "/p", headers: [("Host", "example.com"), ("Content-Length", "3, 3"),
                                                  ("Content-Length", "003")], framing: .contentLength(3)), body: "abc")),
    ValidCase("chunked with extensions and trailers",
              "POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
                  + "5;name=val\r\nhello\r\n6 ; x ;y=\"q\"\r\n world\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n",
              request(head("POST", "/c", headers: [("Host", "example.com"), ("Transfer-Encoding", "chunked")],
                           framing: .chunked), body: "hello world0123456789")),
    ValidCase("chunked, mixed-case coding, uppercase hex with leading zeros, no trailers",
              "POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: Chunked\r\n\r\n00b\r\nhello world\r\n000\r\n\r\n",
              request(head("POST", "/c", headers: [("Host", "example.com"), ("Transfer-Encoding", "Chunked")],
                           framing: .chunked), body: "hello world")),
    ValidCase("chunked with an empty element in the coding list",
              "POST /c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: , chunked\r\n\r\n0\r\n\r\n",
              request(head("POST", "/c", headers: [("Host", "example.com"), ("Transfer-Encoding", ", chunked")],
                           framing: .chunked))),
    ValidCase("HEAD", "HEAD /healthz HTTP/1.1\r\nHost: example.com\r\n\r\n", request(head("HEAD", "/healthz"))),
    ValidCase("HTTP/1.0 without Host closes by default", "GET /x HTTP/1.0\r\n\r\n",
              request(head("GET", "/x", version: .http1_0, headers: [], keepAlive: false))),
    ValidCase("HTTP/1.0 with keep-alive", "GET /x HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
              request(head("GET", "/x", version: .http1_0, headers: [("Connection", "Keep-Alive")], keepAlive: true))),
    ValidCase("HTTP/1.1 with Connection: close in a list", "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive, CLOSE\r\n\r\n",
              request(head(headers: [("Host", "example.com"), ("Connection", "keep-alive, CLOSE")], keepAlive: false))),
    ValidCase("HTTP/1.2 is treated as 1.1", "GET / HTTP/1.2\r\nHost: example.com\r\n\r\n", request(head())),
    ValidCase("absolute-form", "GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: example.com\r\n\r\n",
              request(head("GET", "http://example.com:8080/a/b?c=d", path: "/a/b", query: "c=d"))),
    ValidCase("absolute-form without a path", "GET HTTPS://example.com?q HTTP/1.1\r\nHost: example.com\r\n\r\n",
              request(head("GET", "HTTPS://example.com?q", path: "/", query: "q"))),
    ValidCase("OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: example.com\r\n\r\n", request(head("OPTIONS", "*"))),
    ValidCase("CONNECT authority-form", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
              request(head("CONNECT", "example.com:443", path: "", headers: [("Host", "example.com:443")]))),
    ValidCase("percent-encoding and sub-delims in the path",
              "DELETE /a%20b/c;d=e,f:g@h!$&'()*+~ HTTP/1.1\r\nHost: example.com\r\n\r\n",
              request(head("DELETE", "/a%20b/c;d=e,f:g@h!$&'()*+~"))),
    ValidCase("query containing ? and an empty query", "GET /s?a?b HTTP/1.1\r\nHost: example.com\r\n\r\nGET /t? HTTP/1.1\r\nHost: example.com\r\n\r\n",
              request(head("GET", "/s?a?b", path: "/s", query: "a?b")) + request(head("GET", "/t?", path: "/t"))),
    ValidCase("pipelined two", "GET /1 HTTP/1.1\r\nHost: example.com\r\n\r\nGET /2 HTTP/1.1\r\nHost: example.com\r\n\r\n",
              request(head("GET", "/1")) + request(head("GET", "/2"))),
    ValidCase("pipelined three with bodies and CRLF between",
              "POST /1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 3\r\n\r\nabc\r\n"
                  + "POST /2 HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n"
                  + "GET /3 HTTP/1.1\r\nHost: example.com\r\n\r\n",
              request(head("POST", "/1", headers: [("Host", "example.com"), ("Content-Length", "3")],
                           framing: .contentLength(3)), body: "abc")
                  + request(head("POST", "/2", headers: [("Host", "example.com"), ("Transfer-Encoding", "chunked")],
                                 framing: .chunked), body: "de")
                  + request(head("GET", "/3"))),
    ValidCase("leading empty lines", "\r\n\r\nGET / HTTP/1.1\r\nHost: example.com\r\n\r\n", request(head())),
    ValidCase("obs-text in a value",
              Array("GET / HTTP/1.1\r\nHost: example.com\r\nX-Name: caf\u{e9}\r\nX-Raw: a".utf8) + [0xFF] + Array("b\r\n\r\n".utf8),
              request(head(headers: [("Host", "example.com"), ("X-Name", "caf\u{e9}"), ("X-Raw", "a\u{FFFD}b")]))),
    ValidCase("OWS around values is stripped, inner whitespace and empty values kept",
              "GET / HTTP/1.1\r\nHost:example.com\r\nX-A: \t a \t b \t\r\nX-Empty:\r\nX-Spaces:   \r\n\r\n",
              request(head(headers: [("Host", "example.com"), ("X-A", "a \t b"), ("X-Empty", ""), ("X-Spaces", "")]))),
    ValidCase("Expect: 100-continue with a body",
              "PUT /u HTTP/1.1\r\nHost: example.com\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok",
              request(head("PUT", "/u", headers: [("Host", "example.com"), ("Expect", "100-Continue"), ("Content-Length", "2")],
                           framing: .contentLength(2), expectsContinue: true), body: "ok")),
    ValidCase("Expect: 100-continue without a body does not expect continue",
              "GET / HTTP/1.1\r\nHost: example.com\r\nExpect: 100-continue\r\n\r\n",
              request(head(headers: [("Host", "example.com"), ("Expect", "100-continue")]))),
    ValidCase("empty Host value", "GET / HTTP/1.1\r\nHost:\r\n\r\n", request(head(headers: [("Host", "")]))),
    ValidCase("token characters in method and names", "M-1.x_!#$%&'*+^`|~ / HTTP/1.1\r\nHost: h\r\nX!#$%&'*+-.^_`|~9: v\r\n\r\n",
              request(head("M-1.x_!#$%&'*+^`|~", headers: [("Host", "h"), ("X!#$%&'*+-.^_`|~9", "v")]))),
]

@Test(arguments: validCases)
func validRequestParsesInEverySplit(_ c: ValidCase) {
    let (whole, mismatches) = ParserHarness.outcomeOfAllSplits(c.input, limits: HTTPLimits())
    #expect(whole.error == nil)
    #expect(whole.events == c.expected)
    #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
}
