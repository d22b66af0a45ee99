import HTTP
@testable import Net
import Testing

/// What a parse produced, comparable across split points.
struct ParsedResponse: Equatable, CustomStringConvertible {
    var status: Int
    var headers: [String]
    var body: String
    var trailers: [String]
    var interim: Int
    var description: String { "\(status) \(headers) body=\(body.debugDescription) trailers=\(trailers) interim=\(interim)" }
}

/// Feeds `chunks` one after another (stopping at completion), then EOF.
func parse(_ chunks: [[UInt8]], method: String = "GET", maxHeaderBytes: Int = 64 * 1024) throws(ResponseParseError) -> ParsedResponse {
    var p = HTTPResponseParser(requestMethod: method, maxHeaderBytes: maxHeaderBytes)
    var body: [UInt8] = []
    for chunk in chunks where !p.isComplete {
        let used = try feedAll(&p, chunk) { body.append(contentsOf: $0) }
        if !p.isComplete && used != chunk.count { Issue.record("parser stopped early without completing") }
    }
    if !p.isComplete { try p.finish() }
    let head = p.head!
    return ParsedResponse(status: head.status, headers: head.headers.map { "\($0.name)=\($0.value)" },
                          body: String(decoding: body, as: UTF8.self),
                          trailers: p.trailers.map { "\($0.name)=\($0.value)" }, interim: p.interimResponses)
}

/// `withUnsafeBytes` does not carry typed throws: go through a Result.
func feedAll(_ p: inout HTTPResponseParser, _ bytes: [UInt8],
             onBody: (UnsafeRawBufferPointer) -> Void) throws(ResponseParseError) -> Int {
    let r: Result<Int, ResponseParseError> = bytes.withUnsafeBytes { raw in
        do throws(ResponseParseError) { return .success(try p.feed(raw, onBody: onBody)) } catch { return .failure(error) }
    }
    return try r.get()
}

/// Every two-way split, plus byte-at-a-time, must give the same outcome as one piece.
func parseAtEverySplit(_ text: String, method: String = "GET", maxHeaderBytes: Int = 64 * 1024, stride step: Int = 1)
    -> Result<ParsedResponse, ResponseParseError> {
    let bytes = Array(text.utf8)
    func attempt(_ chunks: [[UInt8]]) -> Result<ParsedResponse, ResponseParseError> {
        do { return .success(try parse(chunks, method: method, maxHeaderBytes: maxHeaderBytes)) } catch { return .failure(error) }
    }
    let whole = attempt([bytes])
    for k in Swift.stride(from: 0, through: bytes.count, by: step) {
        let split = attempt([Array(bytes[..<k]), Array(bytes[k...])])
        if split != whole { Issue.record("split at \(k) gave \(split), whole gave \(whole)"); break }
    }
    let single = step == 1 ? attempt(bytes.map { [$0] }) : whole
    if single != whole { Issue.record("byte-at-a-time gave \(single), whole gave \(whole)") }
    return whole
}

struct ValidResponseCase: Sendable, CustomTestStringConvertible {
    let name: String
    let method: String
    let text: String
    let status: Int
    let body: String
    var headers: [String]? = nil
    var trailers: [String] = []
    var interim = 0
    var testDescription: String { name }
}

@Suite struct ResponseParserTests {
    static let valid: [ValidResponseCase] = [
        .init(name: "content-length", method: "GET",
              text: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A:  spaced value \r\n\r\nhello",
              status: 200, body: "hello", headers: ["Content-Length=5", "X-A=spaced value"]),
        .init(name: "content-length zero", method: "GET", text: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
              status: 200, body: ""),
        .init(name: "repeated identical content-length", method: "GET",
              text: "HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc", status: 200, body: "abc"),
        .init(name: "chunked with extensions and trailers", method: "GET",
              text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;foo=bar\r\nhello\r\n6 ; x=\"y\"\r\n world\r\n"
                  + "A\r\n0123456789\r\n0\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n",
              status: 200, body: "hello world0123456789", trailers: ["X-Trailer=t", "X-Other=u"]),
        .init(name: "chunked, upper-case hex, no trailers", method: "GET",
              text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n1F\r\n" + String(repeating: "z", count: 31)
                  + "\r\n0\r\n\r\n", status: 200, body: String(repeating: "z", count: 31)),
        .init(name: "close-delimited", method: "GET", text: "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nuntil the end\r\n",
              status: 200, body: "until the end\r\n"),
        .init(name: "transfer-encoding not ending in chunked is close-delimited", method: "GET",
              text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw", status: 200, body: "raw"),
        .init(name: "100-continue and 102 before the final response", method: "POST",
              text: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\nX-P: 1\r\n\r\n"
                  + "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
              status: 201, body: "ok", headers: ["Content-Length=2"], interim: 2),
        .init(name: "HEAD ignores content-length", method: "HEAD",
              text: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", status: 200, body: ""),
        .init(name: "204", method: "GET", text: "HTTP/1.1 204 No Content\r\nX: y\r\n\r\n", status: 204, body: ""),
        .init(name: "304 with content-length", method: "GET",
              text: "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n", status: 304, body: ""),
        .init(name: "bare LF line ends, empty reason", method: "GET",
              text: "HTTP/1.1 503\nContent-Length: 4\n\ndown", status: 503, body: "down"),
        .init(name: "bytes after the response are left alone", method: "GET",
              text: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokGARBAGE", status: 200, body: "ok"),
    ]

    @Test(arguments: valid)
    func validResponse(_ c: ValidResponseCase) throws {
        let r = try parseAtEverySplit(c.text, method: c.method).get()
        #expect(r.status == c.status)
        #expect(r.body == c.body)
        if let h = c.headers { #expect(r.headers == h) }
        #expect(r.trailers == c.trailers)
        #expect(r.interim == c.interim)
    }

    static let invalid: [(String, String, ResponseParseError)] = [
        ("status code of four digits", "HTTP/1.1 2000 OK\r\n\r\n", .badStatusLine),
        ("not HTTP", "HTP/1.1 200 OK\r\n\r\n", .badStatusLine),
        ("HTTP/2 status line", "HTTP/2 200\r\n\r\n", .badStatusLine),
        ("status below 100", "HTTP/1.1 099 Odd\r\n\r\n", .badStatusLine),
        ("content-length with transfer-encoding",
         "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", .conflictingFraming),
        ("differing content-lengths", "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello", .badContentLength),
        ("negative content-length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .badContentLength),
        ("bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", .badChunk("no size")),
        ("junk after chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5x\r\nhello\r\n0\r\n\r\n",
         .badChunk("junk after size")),
        ("chunk size overflow", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", .badChunk("size too large")),
        ("chunk data without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXY\r\n0\r\n\r\n",
         .badChunk("missing CRLF after data")),
        ("obs-fold", "HTTP/1.1 200 OK\r\nX: a\r\n  folded\r\nContent-Length: 0\r\n\r\n", .badHeaderLine),
        ("header without colon", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", .badHeaderLine),
        ("space before colon", "HTTP/1.1 200 OK\r\nX : y\r\n\r\n", .badHeaderLine),
        ("101 without asking", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", .unexpectedSwitchingProtocols),
        ("truncated body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello", .truncated),
        ("truncated head", "HTTP/1.1 200 OK\r\nContent-Le", .truncated),
        ("truncated chunked body", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", .truncated),
        ("nothing at all", "", .noResponse),
    ]

    @Test(arguments: invalid.indices)
    func invalidResponse(_ i: Int) {
        let (name, text, expected) = Self.invalid[i]
        let r = parseAtEverySplit(text)
        #expect(r == .failure(expected), "\(name)")
    }

    @Test func oversizedHeadersAreRefused() {
        let big = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Filler: " + String(repeating: "a", count: 1000) + "\r\n", count: 70)
            + "Content-Length: 0\r\n\r\n"
        var p = HTTPResponseParser(requestMethod: "GET")
        let bytes = Array(big.utf8)
        #expect(throws: ResponseParseError.headersTooLarge) {
            _ = try feedAll(&p, bytes) { _ in }
        }
        // Just under the limit is fine.
        let r = parseAtEverySplit(big, maxHeaderBytes: 128 * 1024, stride: 997)
        #expect((try? r.get())?.status == 200)
    }

    @Test func closeDelimitedCompletesOnlyAtEOF() throws {
        var p = HTTPResponseParser(requestMethod: "GET")
        let bytes = Array("HTTP/1.1 200 OK\r\n\r\nabc".utf8)
        _ = try feedAll(&p, bytes) { _ in }
        #expect(p.head?.status == 200)
        #expect(!p.isComplete)
        #expect(p.isCloseDelimited)
        try p.finish()
        #expect(p.isComplete)
    }
}
