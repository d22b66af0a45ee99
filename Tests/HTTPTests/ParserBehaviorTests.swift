import HTTP
import Testing

@Suite("HTTPRequestParser behaviour")
struct ParserBehaviorTests {
    private func feed(_ parser: inout HTTPRequestParser, _ text: String) {
        parser.feed(Array(text.utf8))
    }

    @Test func errorsAreSticky() {
        var parser = HTTPRequestParser()
        feed(&parser, "GET / HTTP/2.0\r\n\r\n")
        #expect(throws: HTTPError.self) { try parser.next() }
        feed(&parser, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        for _ in 0..<3 {
            do {
                _ = try parser.next()
                Issue.record("next() returned after an error")
            } catch {
                #expect(error.status == 505)
                #expect(error.code == "version_not_supported")
            }
        }
        #expect(parser.bufferedByteCount == 0)
        #expect(!parser.isAtRequestBoundary)
    }

    @Test func pipelinedRequestFollowsEnd() throws {
        var parser = HTTPRequestParser()
        #expect(parser.isAtRequestBoundary)
        feed(&parser, "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhiGET /b HTTP/1.1\r\nHost: h\r\n\r\nGET /c")
        #expect(!parser.isAtRequestBoundary)

        guard case .head(let first)? = try parser.next() else { Issue.record("no first head"); return }
        #expect(first.path == "/a")
        #expect(try parser.next() == .body(Array("hi".utf8)))
        #expect(try parser.next() == .end)
        #expect(!parser.isAtRequestBoundary)  // "GET /b…" is already buffered

        guard case .head(let second)? = try parser.next() else { Issue.record("no second head"); return }
        #expect(second.path == "/b")
        #expect(try parser.next() == .end)
        #expect(try parser.next() == nil)
        #expect(parser.bufferedByteCount == "GET /c".utf8.count)

        feed(&parser, " HTTP/1.1\r\nHost: h\r\n\r\n\r\n")
        guard case .head(let third)? = try parser.next() else { Issue.record("no third head"); return }
        #expect(third.path == "/c")
        #expect(try parser.next() == .end)
        #expect(parser.isAtRequestBoundary)  // a trailing CRLF is not the start of a request
        #expect(try parser.next() == nil)
        #expect(parser.isAtRequestBoundary)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func leadingEmptyLinesCountAsIdle() throws {
        var parser = HTTPRequestParser()
        feed(&parser, "\r\n\r")
        #expect(parser.isAtRequestBoundary)
        #expect(try parser.next() == nil)
        #expect(parser.isAtRequestBoundary)
        feed(&parser, "\nG")
        #expect(!parser.isAtRequestBoundary)
        #expect(try parser.next() == nil)
        #expect(!parser.isAtRequestBoundary)
    }

    @Test func overlongRequestLineFailsBeforeItsCRLF() {
        var parser = HTTPRequestParser()
        feed(&parser, "GET /" + String(repeating: "a", count: 9000))
        #expect(throws: HTTPError(414, "request_line_too_long", "The request line is too long.")) { try parser.next() }
    }

    @Test func overlongRequestLineFailsAtTheFirstByteOverTheLimit() throws {
        let limits = HTTPLimits(maxRequestLineBytes: 20)
        var parser = HTTPRequestParser(limits: limits)
        feed(&parser, "GET /" + String(repeating: "a", count: 15))  // exactly 20 bytes: still fine
        #expect(try parser.next() == nil)
        feed(&parser, "\r")  // could still be the CRLF
        #expect(try parser.next() == nil)
        parser = HTTPRequestParser(limits: limits)
        feed(&parser, "GET /" + String(repeating: "a", count: 16))
        #expect(throws: HTTPError.self) { try parser.next() }
    }

    @Test func oversizedHeaderSectionFailsBeforeItsEnd() {
        var parser = HTTPRequestParser()
        feed(&parser, "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "v", count: 17000))
        #expect(throws: HTTPError(431, "header_too_large", "The header section is too large.")) { try parser.next() }
    }

    @Test func headerSectionExactlyAtTheLimitIsAccepted() throws {
        // "Host: h\r\n" (9) + "X: " + 50 bytes + "\r\n" (55) = 64, plus the final CRLF = 66.
        var parser = HTTPRequestParser(limits: HTTPLimits(maxHeaderBytes: 66))
        feed(&parser, "GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "v", count: 50))\r\n\r\n")
        guard case .head? = try parser.next() else { Issue.record("no head"); return }
    }

    @Test func headComesBeforeAnyBodyByteForContinue() throws {
        var parser = HTTPRequestParser()
        feed(&parser, "PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n")
        guard case .head(let head)? = try parser.next() else { Issue.record("no head"); return }
        #expect(head.expectsContinue)
        #expect(head.framing == .chunked)
        #expect(try parser.next() == nil)
        feed(&parser, "3\r\nabc\r\n")
        #expect(try parser.next() == .body(Array("abc".utf8)))
        #expect(try parser.next() == nil)
        feed(&parser, "0\r\n\r\n")
        #expect(try parser.next() == .end)
        #expect(parser.isAtRequestBoundary)
    }

    @Test func bodyIsDeliveredAsItArrivesAndTheBufferEmpties() throws {
        let size = 300_000
        var parser = HTTPRequestParser()
        feed(&parser, "POST /big HTTP/1.1\r\nHost: h\r\nContent-Length: \(size)\r\n\r\n")
        guard case .head? = try parser.next() else { Issue.record("no head"); return }
        var received = 0
        let piece = [UInt8](repeating: 0x61, count: 1000)
        while received < size {
            piece.withUnsafeBytes { parser.feed($0) }
            guard case .body(let chunk)? = try parser.next() else { Issue.record("no body"); return }
            received += chunk.count
            #expect(parser.bufferedByteCount == 0)
        }
        #expect(received == size)
        #expect(try parser.next() == .end)
    }

    @Test func byteByByteFeedingOfALargeHeadIsLinear() throws {
        // Quadratic rescanning would take minutes here; linear parsing takes milliseconds.
        var text = "GET / HTTP/1.1\r\nHost: h\r\n"
        for i in 0..<100 { text += "X-\(i): \(String(repeating: "v", count: 150))\r\n" }
        text += "\r\n"
        var parser = HTTPRequestParser(limits: HTTPLimits(maxHeaderBytes: 1 << 20, maxHeaderCount: 200))
        var events: [HTTPParserEvent] = []
        for byte in text.utf8 {
            parser.feed(CollectionOfOne(byte))
            while let event = try parser.next() { events.append(event) }
        }
        #expect(events.count == 2)
        guard case .head(let head)? = events.first else { Issue.record("no head"); return }
        #expect(head.headers.count == 101)
    }
}
