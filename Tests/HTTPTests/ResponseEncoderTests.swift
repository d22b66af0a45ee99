import Core
@testable import HTTP
import Testing

/// A response as encoded: status line, header fields and body.
private struct Encoded {
    let statusLine: String
    let fields: [(name: String, value: String)]
    let body: [UInt8]

    init(_ bytes: [UInt8]) throws {
        let separator: [UInt8] = [13, 10, 13, 10]
        let end = try #require(bytes.indices.first { bytes[$0...].starts(with: separator) })
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        statusLine = lines.removeFirst()
        fields = try lines.map { line in
            let colon = try #require(line.firstIndex(of: ":"))
            return (String(line[..<colon]), String(line[line.index(colon, offsetBy: 2)...]))
        }
        body = Array(bytes[(end + 4)...])
    }

    func values(_ name: String) -> [String] {
        fields.filter { HTTPHeaders.equalNames($0.name, name) }.map(\.value)
    }
}

@Suite struct ResponseEncoderTests {
    private func encode(_ response: HTTPResponse, headOnly: Bool = false, close: Bool = false,
                        http10KeepAlive: Bool = false) throws -> Encoded {
        var encoder = ResponseEncoder()
        return try Encoded(encoder.encode(response, headOnly: headOnly, close: close, http10KeepAlive: http10KeepAlive))
    }

    @Test func okResponse() throws {
        let r = try encode(.text(200, "hello"))
        #expect(r.statusLine == "HTTP/1.1 200 OK")
        #expect(r.values("Content-Type") == ["text/plain; charset=utf-8"])
        #expect(r.values("Content-Length") == ["5"])
        #expect(r.values("Connection") == [])
        #expect(r.body == Array("hello".utf8))
        #expect(r.fields.map(\.name) == ["Content-Type", "Date", "Content-Length"])
    }

    @Test func dateIsAnIMFFixdateForNow() throws {
        let before = Time.now()
        let r = try encode(HTTPResponse(status: 200))
        let after = Time.now()
        let date = try #require(r.values("Date").first)
        #expect(date == Time.httpDate(before) || date == Time.httpDate(after))
        #expect(date.hasSuffix(" GMT") && date.utf8.count == 29)
    }

    @Test func emptyBodyHasContentLengthZero() throws {
        let r = try encode(HTTPResponse(status: 200))
        #expect(r.values("Content-Length") == ["0"])
        #expect(r.body.isEmpty)
    }

    @Test(arguments: [100, 101, 103, 204, 304])
    func bodylessStatusesHaveNoContentLengthOrBody(status: Int) throws {
        let r = try encode(HTTPResponse(status: status, body: Array("ignored".utf8)))
        #expect(r.statusLine.hasPrefix("HTTP/1.1 \(status) "))
        #expect(r.values("Content-Length") == [])
        #expect(r.body.isEmpty)
    }

    @Test(arguments: [200, 201, 404, 500])
    func headKeepsContentLengthWithoutBody(status: Int) throws {
        let r = try encode(.json(status, #"{"a":1}"#), headOnly: true)
        #expect(r.values("Content-Length") == ["7"])
        #expect(r.body.isEmpty)
    }

    @Test func headOfBodylessStatus() throws {
        let r = try encode(HTTPResponse(status: 304), headOnly: true)
        #expect(r.values("Content-Length") == [])
        #expect(r.body.isEmpty)
    }

    @Test(arguments: [
        (false, false, [String]()),
        (true, false, ["close"]),
        (false, true, ["keep-alive"]),
        (true, true, ["close"]),
    ])
    func connectionHeader(close: Bool, http10KeepAlive: Bool, expected: [String]) throws {
        let r = try encode(.text(200, "x"), close: close, http10KeepAlive: http10KeepAlive)
        #expect(r.values("Connection") == expected)
        #expect(r.body == Array("x".utf8))
    }

    @Test func handlerFramingHeadersAreReplaced() throws {
        var headers = HTTPHeaders()
        headers.add("Content-Length", "999")
        headers.add("content-length", "1")
        headers.add("Connection", "upgrade")
        headers.add("CONNECTION", "keep-alive")
        headers.add("Date", "Mon, 01 Jan 2001 00:00:00 GMT")
        headers.add("date", "yesterday")
        headers.add("X-Kept", "yes")
        headers.add("Cache-Control", "no-store")
        let r = try encode(HTTPResponse(status: 200, headers: headers, body: [1, 2, 3]), close: true)
        #expect(r.values("Content-Length") == ["3"])
        #expect(r.values("Connection") == ["close"])
        #expect(r.values("Date").count == 1)
        #expect(r.values("Date") != ["Mon, 01 Jan 2001 00:00:00 GMT"])
        #expect(r.values("X-Kept") == ["yes"])
        #expect(r.fields.map(\.name) == ["X-Kept", "Cache-Control", "Date", "Content-Length", "Connection"])
        #expect(r.body == [1, 2, 3])
    }

    /// The body is framed by Content-Length; a handler's Transfer-Encoding
    /// would make the response ambiguous (RFC 9112 §6.2), so it is dropped.
    @Test func handlerTransferEncodingIsDropped() throws {
        var headers = HTTPHeaders()
        headers.add("Transfer-Encoding", "chunked")
        headers.add("transfer-encoding", "gzip")
        let r = try encode(HTTPResponse(status: 200, headers: headers, body: Array("abc".utf8)))
        #expect(r.values("Transfer-Encoding") == [])
        #expect(r.values("Content-Length") == ["3"])
        #expect(r.body == Array("abc".utf8))
    }

    @Test func handlerConnectionHeaderIsDroppedWithoutReplacement() throws {
        var headers = HTTPHeaders()
        headers.add("Connection", "close")
        let r = try encode(HTTPResponse(status: 200, headers: headers))
        #expect(r.values("Connection") == [])
    }

    @Test func bodylessStatusDropsHandlerContentLength() throws {
        var headers = HTTPHeaders()
        headers.add("Content-Length", "10")
        let r = try encode(HTTPResponse(status: 204, headers: headers))
        #expect(r.values("Content-Length") == [])
    }

    @Test func errorResponseEncodes() throws {
        let e = HTTPError(405, "method_not_allowed", "no", headers: ["Allow": "GET, HEAD"])
        let r = try encode(.error(e))
        #expect(r.statusLine == "HTTP/1.1 405 Method Not Allowed")
        #expect(r.values("Allow") == ["GET, HEAD"])
        #expect(r.values("Content-Length") == [String(r.body.count)])
    }

    /// Lengths written digit by digit, and bodies on both sides of the size
    /// past which the answer is not built on the stack first.
    @Test(arguments: [0, 1, 9, 10, 99, 100, 1000, 12_345, 70_000])
    func contentLengthAndBodyOfEverySize(size: Int) throws {
        let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let r = try encode(HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/octet-stream")]), body: body))
        #expect(r.values("Content-Length") == [String(size)])
        #expect(r.body == body)
    }

    @Test func encoderIsReusable() throws {
        var encoder = ResponseEncoder()
        let first = try Encoded(encoder.encode(.text(200, "a"), headOnly: false, close: false, http10KeepAlive: false))
        let second = try Encoded(encoder.encode(.text(200, "bb"), headOnly: false, close: false, http10KeepAlive: false))
        #expect(first.values("Content-Length") == ["1"])
        #expect(second.values("Content-Length") == ["2"])
        #expect(second.values("Date").count == 1)
    }
}
