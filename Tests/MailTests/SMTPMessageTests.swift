import Core
@testable import Mail
import Testing

@Suite struct SMTPMessageTests {
    static let date: Int64 = 1_796_052_176  // 2026-11-30T15:22:56Z, a Monday

    func message(subject: String = "Down: API", body: String = "hello") throws -> SMTPMessage {
        try SMTPMessage(from: "alerts@hub.example", to: ["a@example.com", "b@example.org"], subject: subject,
                        body: body, date: Self.date, messageID: "outbox-42@hub.example")
    }

    @Test func headersInOrderWithCRLF() throws {
        let text = try message().rendered()
        #expect(text == """
            Date: Mon, 30 Nov 2026 15:22:56 +0000\r
            From: alerts@hub.example\r
            To: a@example.com,\r
             b@example.org\r
            Subject: Down: API\r
            Message-ID: <outbox-42@hub.example>\r
            MIME-Version: 1.0\r
            Content-Type: text/plain; charset=utf-8\r
            Content-Transfer-Encoding: quoted-printable\r
            \r
            hello\r

            """)
        // Every LF is preceded by CR.
        let bytes = Array(text.utf8)
        for (i, b) in bytes.enumerated() where b == 10 { #expect(i > 0 && bytes[i - 1] == 13) }
    }

    @Test func extraHeadersFollowMessageIDAndRefuseInjection() throws {
        let m = try SMTPMessage(from: "alerts@hub.example", to: ["x@y.z"], subject: "s", body: "b", date: Self.date,
                                messageID: "outbox-7.1@hub.example",
                                extraHeaders: [SMTPHeader("X-Pingtxt-Delivery", "outbox-7"), SMTPHeader("Auto-Submitted", "auto-generated")])
        #expect(m.rendered().contains("Message-ID: <outbox-7.1@hub.example>\r\nX-Pingtxt-Delivery: outbox-7\r\n"
            + "Auto-Submitted: auto-generated\r\nMIME-Version: 1.0\r\n"))
        for bad in [SMTPHeader("X-A", "v\r\nBcc: evil@x.y"), SMTPHeader("X A", "v"), SMTPHeader("X:A", "v"), SMTPHeader("", "v"),
                    SMTPHeader("X-A", "ü")] {
            #expect(throws: SMTPError.self) {
                _ = try SMTPMessage(from: "alerts@hub.example", to: ["x@y.z"], subject: "s", body: "b", extraHeaders: [bad])
            }
        }
    }

    @Test func randomMessageIDUsesTheFromDomain() throws {
        let a = try SMTPMessage(from: "alerts@hub.example", to: ["x@y.z"], subject: "s", body: "b")
        let b = try SMTPMessage(from: "alerts@hub.example", to: ["x@y.z"], subject: "s", body: "b")
        #expect(a.messageID.hasSuffix("@hub.example") && a.messageID.count == 32 + 12)
        #expect(a.messageID != b.messageID)
        #expect(a.rendered().contains("Message-ID: <\(a.messageID)>\r\n"))
    }

    @Test(arguments: [
        ("Down: API", "Down: API"),
        ("Störung", "=?UTF-8?B?U3TDtnJ1bmc=?="),
        ("🔴 down", "=?UTF-8?B?8J+UtCBkb3du?="),
        ("a =?x?=", "=?UTF-8?B?YSA9P3g/PQ==?="),
    ])
    func encodedWordSubject(input: String, expected: String) {
        #expect(SMTPMessage.encodeHeaderText(input) == expected)
    }

    @Test func longNonASCIISubjectIsFoldedIntoShortWordsOnCharacterBoundaries() {
        let subject = String(repeating: "é", count: 60) + "🔴"
        let encoded = SMTPMessage.encodeHeaderText(subject)
        let words = encoded.split(separator: "\r\n ").map(String.init)
        #expect(words.count > 1)
        var decoded: [UInt8] = []
        for w in words {
            #expect(w.count <= 75 && w.hasPrefix("=?UTF-8?B?") && w.hasSuffix("?="))
            let payload = String(w.dropFirst(10).dropLast(2))
            let bytes = decodeBase64Test(payload)
            #expect(String(validating: bytes, as: UTF8.self) != nil, "each word holds whole characters")
            decoded += bytes
        }
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
    }

    /// A long non-ASCII subject (an alert title with a long cause): every
    /// header line, the first with `Subject: ` included, is at most 76
    /// characters (RFC 2047 §2), continuation lines start with a space, and
    /// the words decode back to the subject.
    @Test(arguments: [
        "🔴 Zahlungsdienst für Österreich ist ausgefallen — HTTP 503 von hub, eu-west-1, seit 10:02 UTC",
        String(repeating: "日本語の監視対象", count: 20),
        "é",
        String(repeating: "a", count: 67),
        String(repeating: "a", count: 68),
        String(repeating: "x", count: 300) + "🔴",
        "e" + String(repeating: "\u{301}", count: 80),
    ])
    func longSubjectIsFoldedIntoLinesOf76(subject: String) throws {
        let text = try message(subject: subject).rendered()
        let head = text.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        for line in lines { #expect(line.utf8.count <= 76, "\(line.utf8.count): \(line)") }
        let start = try #require(lines.firstIndex { $0.hasPrefix("Subject: ") })
        var field = [String(lines[start].dropFirst("Subject: ".count))]
        for line in lines[(start + 1)...] {
            guard line.hasPrefix(" ") else { break }
            field.append(String(line.dropFirst()))
        }
        if field.count == 1 && !field[0].hasPrefix("=?") {
            #expect(field[0] == subject)
            return
        }
        var decoded: [UInt8] = []
        for w in field {
            #expect(w.hasPrefix("=?UTF-8?B?") && w.hasSuffix("?=") && !w.contains(" "))
            let bytes = decodeBase64Test(String(w.dropFirst(10).dropLast(2)))
            #expect(String(validating: bytes, as: UTF8.self) != nil, "each word holds whole code points")
            decoded += bytes
        }
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
    }

    @Test(arguments: [
        ("plain text", "plain text"),
        ("a=b", "a=3Db"),
        ("trailing space ", "trailing space=20"),
        ("tab\t", "tab=09"),
        ("inner  spaces\tand tab", "inner  spaces\tand tab"),
        ("line1\nline2\r\nline3\rend", "line1\r\nline2\r\nline3\r\nend"),
        ("space \nnext", "space=20\r\nnext"),
        ("é", "=C3=A9"),
        ("Grüße 🔴", "Gr=C3=BC=C3=9Fe =F0=9F=94=B4"),
        ("ctrl\u{7}", "ctrl=07"),
        (String(repeating: "a", count: 76), String(repeating: "a", count: 76)),
        (String(repeating: "a", count: 77), String(repeating: "a", count: 75) + "=\r\naa"),
        (String(repeating: "a", count: 74) + "é", String(repeating: "a", count: 74) + "=\r\n=C3=A9"),
        (String(repeating: "a", count: 73) + "=", String(repeating: "a", count: 73) + "=3D"),
        ("", ""),
    ])
    func quotedPrintable(input: String, expected: String) {
        let encoded = QuotedPrintable.encode(input)
        #expect(encoded == expected)
        for line in encoded.split(separator: "\r\n", omittingEmptySubsequences: false) {
            #expect(line.utf8.count <= 76)
            #expect(line.last != " " && line.last != "\t")
        }
    }

    @Test func quotedPrintableRoundTripsLongMixedText() {
        let text = (0..<40).map { "Zeile \($0): " + String(repeating: "äö = x ", count: $0) }.joined(separator: "\n")
        let encoded = QuotedPrintable.encode(text)
        #expect(encoded.utf8.allSatisfy { $0 < 128 })
        for line in encoded.split(separator: "\r\n") { #expect(line.utf8.count <= 76) }
        let normalized = text.replacingNewlines()
        #expect(String(decoding: QuotedPrintable.decode(encoded), as: UTF8.self) == normalized)
    }

    @Test func dotStuffing() throws {
        #expect(SMTPMessage.dotStuff(".a\r\nb\r\n..c\r\n.\r\n") == "..a\r\nb\r\n...c\r\n..\r\n")
        let m = try message(body: ".\nline\n.hidden")
        let payload = m.dataPayload()
        #expect(payload.hasSuffix("\r\n..\r\nline\r\n..hidden\r\n.\r\n"))
    }

    @Test(arguments: ["Down\r\nBcc: victim@example.com", "x\ny", "x\rBcc: a@b", "nul\0"])
    func headerInjectionInTheSubjectIsRefused(subject: String) {
        #expect(throws: SMTPError.self) { try SMTPMessage(from: "a@b.c", to: ["d@e.f"], subject: subject, body: "") }
    }

    @Test(arguments: ["a@b.c\r\nBcc: x@y.z", "Name <a@b.c>", "a@b.c, d@e.f", "no-at-sign", "@b.c", "a@", "a b@c.d", "ü@b.c", "a@b@c"])
    func badAddressesAreRefused(address: String) {
        #expect(throws: SMTPError.self) { try SMTPMessage(from: address, to: ["d@e.f"], subject: "s", body: "") }
        #expect(throws: SMTPError.self) { try SMTPMessage(from: "d@e.f", to: [address], subject: "s", body: "") }
    }

    @Test func noRecipientAndBadMessageIDAreRefused() {
        #expect(throws: SMTPError.self) { try SMTPMessage(from: "a@b.c", to: [], subject: "s", body: "") }
        #expect(throws: SMTPError.self) {
            try SMTPMessage(from: "a@b.c", to: ["d@e.f"], subject: "s", body: "", messageID: "x>\r\nBcc: y@z")
        }
        let error = try? SMTPMessage(from: "a@b.c", to: ["d@e.f"], subject: "x\ny", body: "") as SMTPMessage?
        #expect(error == nil)
    }
}

extension String {
    func replacingNewlines() -> String {
        var out = ""
        for ch in self { if ch == "\n" { out += "\r\n" } else { out.append(ch) } }
        return out
    }
}

func decodeBase64Test(_ text: String) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    var acc: UInt32 = 0
    var bits = 0
    for c in text.utf8 {
        guard let v = alphabet.firstIndex(of: c) else { continue }
        acc = acc << 6 | UInt32(v)
        bits += 6
        if bits >= 8 { bits -= 8; out.append(UInt8((acc >> UInt32(bits)) & 0xFF)) }
    }
    return out
}
