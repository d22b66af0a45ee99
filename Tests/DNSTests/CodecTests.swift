import DNS
import Testing

/// Hand-assembled wire bytes: `name` writes uncompressed labels, everything
/// else is appended literally, so these tests do not lean on the encoder.
struct Wire {
    var bytes: [UInt8] = []

    init(_ bytes: [UInt8] = []) { self.bytes = bytes }

    mutating func u16(_ v: Int) { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    mutating func u32(_ v: Int) { bytes += [UInt8((v >> 24) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    mutating func name(_ text: String) {
        for label in text.split(separator: ".") {
            bytes.append(UInt8(label.utf8.count))
            bytes += Array(label.utf8)
        }
        bytes.append(0)
    }
    mutating func header(id: Int = 0xBEEF, flags: Int = 0x8180, qd: Int = 1, an: Int = 0, ns: Int = 0, ar: Int = 0) {
        u16(id); u16(flags); u16(qd); u16(an); u16(ns); u16(ar)
    }
    /// Record header; `rdata` appended with its length.
    mutating func record(owner: [UInt8], type: Int, ttl: Int = 300, rdata: [UInt8]) {
        bytes += owner
        u16(type); u16(1); u32(ttl); u16(rdata.count)
        bytes += rdata
    }
    static func labels(_ text: String) -> [UInt8] { var w = Wire(); w.name(text); return w.bytes }
}

@Suite struct QueryEncodingTests {
    @Test func queryWithEDNSMatchesHandWrittenBytes() throws {
        let q = try DNSMessage.query(id: 0x1234, name: "Example.COM.", type: .a)
        let expected: [UInt8] = [
            0x12, 0x34, // id
            0x01, 0x00, // RD
            0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // QD 1, AN 0, NS 0, AR 1
            7, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 3, 0x63, 0x6F, 0x6D, 0, // example.com
            0x00, 0x01, 0x00, 0x01, // A IN
            0x00, 0x00, 0x29, 0x04, 0xD0, // OPT, root owner, payload 1232
            0x00, 0x00, 0x00, 0x00, // ext rcode, version, flags
            0x00, 0x00, // no options
        ]
        #expect(try q.encode() == expected)
    }

    @Test func queryWithoutEDNS() throws {
        let q = try DNSMessage.query(id: 0xABCD, name: "a.b", type: .aaaa, ednsUDPSize: nil)
        #expect(try q.encode() == [0xAB, 0xCD, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
                                   1, 0x61, 1, 0x62, 0, 0x00, 0x1C, 0x00, 0x01])
    }

    @Test(arguments: [("MX", 15), ("TXT", 16), ("NS", 2), ("CNAME", 5), ("A", 1), ("AAAA", 28), ("aaaa", 28)])
    func recordTypesFromAPINames(name: String, code: Int) throws {
        let t = try #require(DNSRecordType(apiName: name))
        #expect(Int(t.code) == code)
        #expect(DNSRecordType(code: t.code) == t)
    }

    @Test func unknownAPINamesAndCodes() {
        #expect(DNSRecordType(apiName: "SOA") == nil)
        #expect(DNSRecordType(apiName: "ANY") == nil)
        #expect(DNSRecordType(code: 6) == .soa)
        #expect(DNSRecordType(code: 65) == .other(65))
        #expect(DNSRecordType.other(65).name == "TYPE65")
    }

    @Test func randomIDsVary() {
        let ids = Set((0..<64).map { _ in DNSMessage.randomID() })
        #expect(ids.count > 50)
    }

    @Test(arguments: ["", "a..b", ".a", "bad name.example", "tab\t.example", String(repeating: "x", count: 64) + ".com",
                      Array(repeating: String(repeating: "x", count: 63), count: 4).joined(separator: "."), "trailing\\"])
    func invalidQueryNames(name: String) {
        if name.isEmpty {
            // The root is a valid name.
            #expect(throws: Never.self) { try DNSMessage.query(id: 1, name: name, type: .ns) }
            return
        }
        #expect {
            try DNSMessage.query(id: 1, name: name, type: .a)
        } throws: { error in
            if case .invalidName? = error as? DNSError { return true }
            return false
        }
    }

    @Test func longestValidName() throws {
        // 3 × (1+63) + (1+61) + 1 = 255 bytes on the wire.
        let name = Array(repeating: String(repeating: "x", count: 63), count: 3).joined(separator: ".")
            + "." + String(repeating: "y", count: 61)
        let bytes = try DNSMessage.query(id: 1, name: name, type: .a, ednsUDPSize: nil).encode()
        #expect(bytes.count == 12 + 255 + 4)
        #expect(throws: DNSError.self) { try DNSMessage.query(id: 1, name: name + "y", type: .a) }
    }

    @Test func nameEscapes() throws {
        #expect(try DNSName.normalize("WWW.Example.COM.") == "www.example.com")
        #expect(try DNSName.labels("a\\.b.c") == [Array("a.b".utf8), Array("c".utf8)])
        #expect(DNSName.text([[0x61, 0x2E, 0x00, 0x5C]]) == "a\\.\\000\\\\")
        #expect(try DNSName.labels("a\\000b") == [[0x61, 0, 0x62]])
        #expect(DNSName.equal("Mail.Example.com.", "mail.example.com"))
    }
}

@Suite struct ResponseDecodingTests {
    @Test func compressedCNAMEChainWithTwoAddresses() throws {
        var w = Wire()
        w.header(an: 3)
        w.name("www.example.com")          // offset 12; "example" at 16
        w.u16(1); w.u16(1)
        // CNAME www → web.example.com, rdata "web" + pointer to offset 16; rdata at 45.
        w.record(owner: [0xC0, 0x0C], type: 5, rdata: [3, 0x77, 0x65, 0x62, 0xC0, 0x10])
        w.record(owner: [0xC0, 0x2D], type: 1, ttl: 60, rdata: [10, 0, 0, 6])
        w.record(owner: [0xC0, 0x2D], type: 1, ttl: 60, rdata: [10, 0, 0, 7])
        let m = try DNSMessage.parse(w.bytes)
        #expect(m.header.id == 0xBEEF && m.header.isResponse && !m.header.truncated && m.header.recursionAvailable)
        #expect(m.rcode == .noError)
        #expect(m.questions == [DNSQuestion(name: "www.example.com", type: .a)])
        #expect(m.answers.map(\.name) == ["www.example.com", "web.example.com", "web.example.com"])
        #expect(m.answers.map(\.value) == ["web.example.com", "10.0.0.6", "10.0.0.7"])
        #expect(m.answers[1].ttl == 60)
        #expect(m.answers[0].data == .cname("web.example.com"))
    }

    @Test func everyRecordType() throws {
        var w = Wire()
        w.header(flags: 0x8580, an: 7) // AA set
        w.name("Example.COM")               // offset 12, 13 bytes
        w.u16(255); w.u16(1)
        let owner: [UInt8] = [0xC0, 0x0C]
        w.record(owner: owner, type: 15, rdata: [0, 10] + Wire.labels("mail.example.com"))
        w.record(owner: owner, type: 15, rdata: [0, 20, 5] + Array("MAIL2".utf8) + [0xC0, 0x0C])
        w.record(owner: owner, type: 2, rdata: [3] + Array("ns1".utf8) + [0xC0, 0x0C])
        w.record(owner: owner, type: 16, rdata: [12] + Array("v=spf1 -all ".utf8) + [4] + Array("more".utf8) + [0])
        w.record(owner: owner, type: 28, rdata: [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1])
        w.record(owner: owner, type: 28, rdata: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, 1])
        w.record(owner: owner, type: 65, rdata: [0, 1, 0])
        let m = try DNSMessage.parse(w.bytes)
        #expect(m.header.authoritative)
        #expect(m.questions.first?.type == .other(255))
        #expect(m.answers.map(\.name) == Array(repeating: "example.com", count: 7))
        #expect(m.answers.map(\.type) == [.mx, .mx, .ns, .txt, .aaaa, .aaaa, .other(65)])
        #expect(m.answers[0].data == .mx(preference: 10, exchange: "mail.example.com"))
        #expect(m.answers.map(\.value) == [
            "10 mail.example.com", "20 mail2.example.com", "ns1.example.com", "v=spf1 -all more",
            "2001:db8::1", "::ffff:192.0.2.1", "\\# 3 000100",
        ])
        #expect(m.answers[3].data == .txt(["v=spf1 -all ", "more", ""]))
    }

    @Test func nxDomainWithSOAAndExtendedRCode() throws {
        var w = Wire()
        w.header(flags: 0x8183, ns: 1, ar: 1)
        w.name("nope.example")              // offset 12; "example" at 17
        w.u16(1); w.u16(1)
        var soa = [UInt8]([3] + Array("ns1".utf8) + [0xC0, 0x11])
        soa += [10] + Array("hostmaster".utf8) + [0xC0, 0x11]
        for v in [2024010101, 3600, 600, 86400, 60] {
            soa += [UInt8((v >> 24) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        w.record(owner: [0xC0, 0x11], type: 6, rdata: soa)
        // OPT: root, class 1232, ext-rcode 0, version 0, DO=1.
        w.bytes += [0, 0, 41, 0x04, 0xD0, 0, 0, 0x80, 0, 0, 0]
        let m = try DNSMessage.parse(w.bytes)
        #expect(m.rcode == .nxDomain)
        #expect(m.authority.first?.data == .soa(DNSSOA(mname: "ns1.example", rname: "hostmaster.example",
                                                       serial: 2024010101, refresh: 3600, retry: 600,
                                                       expire: 86400, minimum: 60)))
        #expect(m.additional.isEmpty)
        #expect(m.edns == DNSEDNS(udpPayloadSize: 1232, dnssecOK: true))

        // Extended RCODE: BADVERS = 16 → header 0, OPT high bits 1.
        var b = Wire()
        b.header(flags: 0x8180, qd: 0, ar: 1)
        b.bytes += [0, 0, 41, 0x04, 0xD0, 1, 0, 0, 0, 0, 0]
        #expect(try DNSMessage.parse(b.bytes).rcode == .other(16))
    }

    @Test func aaaaCanonicalForms() {
        let cases: [(String, String)] = [
            ("2001:db8:0:0:0:0:0:1", "2001:db8::1"),
            ("2001:DB8:0::1", "2001:db8::1"),
            ("2001:0db8:0000:0000:0001:0000:0000:0001", "2001:db8::1:0:0:1"), // first of equal runs
            ("2001:db8:0:0:1:0:0:0", "2001:db8:0:0:1::"),                     // longest run wins
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),                 // one zero group stays
            ("0:0:0:0:0:0:0:0", "::"),
            ("::1", "::1"),
            ("fe80::", "fe80::"),
            ("::ffff:c000:0201", "::ffff:192.0.2.1"),
            ("::192.0.2.1", "::c000:201"),
            ("2606:4700:4700::1111", "2606:4700:4700::1111"),
        ]
        for (input, canonical) in cases {
            let bytes = IPAddressText.parseIPv6(input)
            #expect(bytes?.count == 16, "\(input)")
            if let bytes { #expect(IPAddressText.formatIPv6(bytes) == canonical, "\(input)") }
        }
        for bad in ["", ":", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "g::", "::1.2.3", "1:2:3:4:5:6:7::8"] {
            #expect(IPAddressText.parseIPv6(bad) == nil, "\(bad)")
        }
        #expect(IPAddressText.parseIPv4("1.2.3.4") == [1, 2, 3, 4])
        for bad in ["1.2.3", "1.2.3.256", "01.2.3.4", "1.2.3.4.5", "a.b.c.d", ""] {
            #expect(IPAddressText.parseIPv4(bad) == nil, "\(bad)")
        }
    }

    @Test func encoderRoundTripsAndCompresses() throws {
        let records = [
            DNSRecord(name: "example.com", type: .mx, ttl: 1, data: .mx(preference: 5, exchange: "mx.example.com")),
            DNSRecord(name: "example.com", type: .txt, ttl: 1, data: .txt([String(repeating: "t", count: 300)])),
            DNSRecord(name: "example.com", type: .aaaa, ttl: 1, data: .aaaa(IPAddressText.parseIPv6("2001:db8::1")!)),
        ]
        let m = DNSMessage(header: DNSHeader(id: 7, isResponse: true), questions: [DNSQuestion(name: "example.com", type: .mx)],
                           answers: records)
        let bytes = try m.encode()
        // Owner names after the question are 2-byte pointers.
        #expect(Array(bytes[29..<31]) == [0xC0, 0x0C])
        let back = try DNSMessage.parse(bytes)
        #expect(back.answers[0] == records[0])
        // A 300-byte TXT string goes out as 255 + 45 and reads back joined.
        #expect(back.answers[1].data == .txt([String(repeating: "t", count: 255), String(repeating: "t", count: 45)]))
        #expect(back.answers[1].value == String(repeating: "t", count: 300))
        #expect(back.answers[2].value == "2001:db8::1")
    }
}

@Suite struct MalformedResponseTests {
    static func expectMalformed(_ bytes: [UInt8], _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let m = try DNSMessage.parse(bytes)
            Issue.record("parsed: \(m)", sourceLocation: sourceLocation)
        } catch {
            guard case .malformedResponse(let text) = error else {
                Issue.record("wrong error \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(text.contains(fragment), "\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func pointerToItself() {
        var w = Wire()
        w.header()
        w.bytes += [0xC0, 0x0C, 0, 1, 0, 1]
        Self.expectMalformed(w.bytes, "loop")
    }

    @Test func pointerLoopThroughTwoNames() {
        var w = Wire()
        w.header(an: 1)
        w.bytes += [1, 0x61, 0xC0, 0x12]   // offset 12: "a" then pointer to 18 (forward)
        w.u16(1); w.u16(1)
        w.bytes += [0xC0, 0x0C]            // offset 18 → 12
        Self.expectMalformed(w.bytes, "loop")
    }

    @Test func pointerIntoOwnLabels() {
        var w = Wire()
        w.header()
        w.bytes += [1, 0x61, 1, 0x62, 0xC0, 0x0E, 0, 1, 0, 1] // pointer back to "b" inside the same name
        Self.expectMalformed(w.bytes, "loop")
    }

    @Test func pointerPastEnd() {
        var w = Wire()
        w.header(an: 1)
        w.name("a.example")
        w.u16(1); w.u16(1)
        w.record(owner: [0xC1, 0xFF], type: 1, rdata: [1, 2, 3, 4])
        Self.expectMalformed(w.bytes, "past end")
    }

    @Test func truncatedPointer() {
        var w = Wire()
        w.header()
        w.bytes += [1, 0x61, 0xC0]
        Self.expectMalformed(w.bytes, "truncated")
    }

    @Test func truncatedRDATA() {
        var w = Wire()
        w.header(an: 1)
        w.name("a.example")
        w.u16(1); w.u16(1)
        w.record(owner: [0xC0, 0x0C], type: 1, rdata: [10, 0, 0, 1])
        Self.expectMalformed(Array(w.bytes.dropLast(2)), "past end")
    }

    @Test func wrongAddressLength() {
        var w = Wire()
        w.header(an: 1)
        w.name("a.example")
        w.u16(28); w.u16(1)
        w.record(owner: [0xC0, 0x0C], type: 28, rdata: [1, 2, 3, 4])
        Self.expectMalformed(w.bytes, "not 16")
    }

    @Test func rdataLengthDisagreesWithName() {
        var w = Wire()
        w.header(an: 1)
        w.name("a.example")
        w.u16(15); w.u16(1)
        // MX with one stray byte after the exchange name.
        w.record(owner: [0xC0, 0x0C], type: 15, rdata: [0, 10, 0xC0, 0x0C, 0xFF])
        Self.expectMalformed(w.bytes, "does not match")
    }

    @Test func txtStringPastRDATA() {
        var w = Wire()
        w.header(an: 1)
        w.name("a.example")
        w.u16(16); w.u16(1)
        w.record(owner: [0xC0, 0x0C], type: 16, rdata: [5, 0x61, 0x62])
        Self.expectMalformed(w.bytes, "TXT")
    }

    @Test func labelLongerThan63() {
        var w = Wire()
        w.header()
        w.bytes += [64] + [UInt8](repeating: 0x61, count: 64) + [0, 0, 1, 0, 1]
        Self.expectMalformed(w.bytes, "label")
        var r = Wire()
        r.header()
        r.bytes += [0x80, 0x61, 0, 0, 1, 0, 1]
        Self.expectMalformed(r.bytes, "label")
    }

    @Test func nameLongerThan255() {
        var w = Wire()
        w.header()
        for _ in 0..<4 { w.bytes += [63] + [UInt8](repeating: 0x61, count: 63) }
        w.bytes += [0, 0, 1, 0, 1]
        Self.expectMalformed(w.bytes, "longer than 255")
    }

    @Test func nameLongerThan255ThroughPointers() {
        // 200 bytes of labels, then a second name adding 100 more via a pointer.
        var w = Wire()
        w.header(an: 1)
        for _ in 0..<4 { w.bytes += [49] + [UInt8](repeating: 0x61, count: 49) }
        w.bytes += [0]
        w.u16(1); w.u16(1)
        var owner: [UInt8] = []
        for _ in 0..<2 { owner += [49] + [UInt8](repeating: 0x62, count: 49) }
        owner += [0xC0, 0x0C]
        w.record(owner: owner, type: 1, rdata: [1, 2, 3, 4])
        Self.expectMalformed(w.bytes, "longer than 255")
    }

    @Test func truncatedHeaderAndMissingRecords() {
        Self.expectMalformed([0xBE, 0xEF, 0x81], "header")
        var w = Wire()
        w.header(an: 2)
        w.name("a.example")
        w.u16(1); w.u16(1)
        w.record(owner: [0xC0, 0x0C], type: 1, rdata: [1, 2, 3, 4])
        Self.expectMalformed(w.bytes, "past end")
    }
}

@Suite struct CodeEqualityTests {
    @Test func otherCasesEqualNamedOnesWithTheSameCode() {
        #expect(DNSRecordType.other(1) == .a)
        #expect(Set([DNSRecordType.other(28), .aaaa]).count == 1)
        #expect(DNSRCode.other(3) == .nxDomain)
        #expect(DNSRCode(code: 9).description == "RCODE9")
    }

    /// A long TXT string is split into 255-byte pieces on UTF-8 boundaries,
    /// so each piece decodes as the text it was (found by the dns fuzz target:
    /// a cut inside "é" came back as two U+FFFD).
    @Test func longTXTSplitsOnScalarBoundaries() throws {
        let text = String(repeating: "a", count: 254) + "éé" + String(repeating: "b", count: 300)
        let record = DNSRecord(name: "t.example", type: .txt, ttl: 60, data: .txt([text]))
        let m = DNSMessage(header: DNSHeader(id: 1, isResponse: true), answers: [record])
        let back = try DNSMessage.parse(try m.encode())
        guard case .txt(let pieces)? = back.answers.first?.data else { Issue.record("no TXT answer"); return }
        #expect(pieces.joined() == text)
        #expect(pieces.allSatisfy { $0.utf8.count <= 255 } && pieces.count == 3)
        #expect(pieces[0] == String(repeating: "a", count: 254))
    }
}
