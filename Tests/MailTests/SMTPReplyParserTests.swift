import Mail
import Testing

/// The pure reply parser the SMTP client reads through (and the `smtp` fuzz
/// target drives): replies are the same however the bytes arrive.
@Suite struct SMTPReplyParserTests {
    func replies(_ pieces: [String]) throws(SMTPError) -> [SMTPReply] {
        var p = SMTPReplyParser()
        var out: [SMTPReply] = []
        for piece in pieces {
            p.feed(Array(piece.utf8))
            while let r = try p.next() { out.append(r) }
        }
        return out
    }

    @Test func multilineReplyInAnyCut() throws {
        let text = "220 hi\r\n250-mail.example.com\r\n250-STARTTLS\r\n250 8BITMIME\r\n"
        let whole = try replies([text])
        #expect(whole.map(\.code) == [220, 250])
        #expect(whole[1].lines == ["mail.example.com", "STARTTLS", "8BITMIME"])
        #expect(try replies(text.map { String($0) }) == whole)
        #expect(try replies([String(text.prefix(13)), String(text.dropFirst(13))]) == whole)
    }

    @Test func mixedCodesAndGarbageAreRefusedForGood() throws {
        var p = SMTPReplyParser()
        p.feed(Array("250-a\r\n251 b\r\n".utf8))
        #expect(throws: SMTPError.self) { try p.next() }
        p.feed(Array("250 ok\r\n".utf8))
        #expect(throws: SMTPError.self) { try p.next() }
        #expect(throws: SMTPError.self) { try replies(["hello\r\n"]) }
    }

    /// The 8 KiB line limit is judged on the line, not on how much arrived
    /// at once: before, a long line that came in one read was accepted.
    @Test func lineLimitDoesNotDependOnTheCut() throws {
        let long = "250 " + String(repeating: "x", count: SMTPReplyParser.maxLineBytes) + "\r\n"
        #expect(throws: SMTPError.self) { try replies([long]) }
        #expect(throws: SMTPError.self) { try replies([String(long.prefix(8_300)), String(long.dropFirst(8_300))]) }
        let fits = "250 " + String(repeating: "x", count: SMTPReplyParser.maxLineBytes - 4) + "\r\n"
        #expect(try replies([fits]).count == 1)
    }

    @Test func atMostTwoHundredLines() throws {
        let many = String(repeating: "250-x\r\n", count: SMTPReplyParser.maxLines) + "250 end\r\n"
        #expect(throws: SMTPError.self) { try replies([many]) }
        let enough = String(repeating: "250-x\r\n", count: SMTPReplyParser.maxLines - 1) + "250 end\r\n"
        #expect(try replies([enough]).first?.lines.count == SMTPReplyParser.maxLines)
    }
}
