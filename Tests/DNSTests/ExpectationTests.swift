import DNS
import Testing

@Suite struct ExpectationTests {
    static func response(_ name: String, _ type: DNSRecordType, _ answers: [DNSRecord], rcode: DNSRCode = .noError) -> DNSResponse {
        DNSResponse(name: name, type: type, rcode: rcode, answers: answers)
    }

    static func a(_ owner: String, _ ip: String) -> DNSRecord {
        DNSRecord(name: owner, type: .a, ttl: 60, data: .a(IPAddressText.parseIPv4(ip)!))
    }

    static func aaaa(_ owner: String, _ ip: String) -> DNSRecord {
        DNSRecord(name: owner, type: .aaaa, ttl: 60, data: .aaaa(IPAddressText.parseIPv6(ip)!))
    }

    static func cname(_ owner: String, _ target: String) -> DNSRecord {
        DNSRecord(name: owner, type: .cname, ttl: 60, data: .cname(target))
    }

    @Test func addressMismatchListsWhatCameBack() {
        let r = Self.response("host.test", .a, [Self.a("host.test", "10.0.0.6"), Self.a("host.test", "10.0.0.7")])
        #expect(DNSExpectation.evaluate(expected: "10.0.0.5", response: r)
            == DNSCheckOutcome(ok: false, message: "expected 10.0.0.5, got 10.0.0.6, 10.0.0.7"))
        #expect(DNSExpectation.evaluate(expected: "10.0.0.7", response: r).ok)
        #expect(DNSExpectation.evaluate(expected: nil, response: r)
            == DNSCheckOutcome(ok: true, message: "10.0.0.6, 10.0.0.7"))
        #expect(!DNSExpectation.evaluate(expected: "not-an-ip", response: r).ok)
    }

    @Test func ipv6ComparedAsAddresses() {
        let r = Self.response("host.test", .aaaa, [Self.aaaa("host.test", "2001:db8::1")])
        #expect(DNSExpectation.evaluate(expected: "2001:db8:0::1", response: r).ok)
        #expect(DNSExpectation.evaluate(expected: "2001:0DB8:0000:0000:0000:0000:0000:0001", response: r).ok)
        #expect(!DNSExpectation.evaluate(expected: "2001:db8::2", response: r).ok)
    }

    @Test func failuresByRCodeAndEmptyAnswers() {
        #expect(DNSExpectation.evaluate(expected: "10.0.0.5", response: Self.response("x.test", .a, [], rcode: .nxDomain))
            == DNSCheckOutcome(ok: false, message: "NXDOMAIN"))
        #expect(DNSExpectation.evaluate(expected: nil, response: Self.response("x.test", .a, [], rcode: .servFail))
            == DNSCheckOutcome(ok: false, message: "SERVFAIL"))
        #expect(DNSExpectation.evaluate(expected: nil, response: Self.response("x.test", .a, []))
            == DNSCheckOutcome(ok: false, message: "no A records"))
        #expect(DNSExpectation.evaluate(expected: "mail.test", response: Self.response("x.test", .mx, []))
            == DNSCheckOutcome(ok: false, message: "no MX records"))
    }

    @Test func cnameChainInTheAnswerSectionCounts() {
        let chain = Self.response("www.test", .a, [Self.cname("www.test", "edge.test"), Self.cname("edge.test", "host.test"),
                                                  Self.a("host.test", "10.0.0.6")])
        #expect(DNSExpectation.evaluate(expected: nil, response: chain).ok)
        #expect(DNSExpectation.evaluate(expected: "10.0.0.6", response: chain).ok)
        // A CNAME alone is not an A record.
        let dangling = Self.response("www.test", .a, [Self.cname("www.test", "host.test")])
        #expect(DNSExpectation.evaluate(expected: nil, response: dangling) == DNSCheckOutcome(ok: false, message: "no A records"))
        // Records off the chain do not count.
        let unrelated = Self.response("www.test", .a, [Self.a("other.test", "10.0.0.9")])
        #expect(!DNSExpectation.evaluate(expected: nil, response: unrelated).ok)
        // A CNAME loop ends.
        let loop = Self.response("a.test", .a, [Self.cname("a.test", "b.test"), Self.cname("b.test", "a.test")])
        #expect(!DNSExpectation.evaluate(expected: nil, response: loop).ok)
    }

    @Test func namesCaseInsensitive() {
        let cname = Self.response("www.test", .cname, [Self.cname("www.test", "host.test")])
        #expect(DNSExpectation.evaluate(expected: "HOST.Test.", response: cname).ok)
        let ns = Self.response("test", .ns, [DNSRecord(name: "test", type: .ns, ttl: 1, data: .ns("ns1.test"))])
        #expect(DNSExpectation.evaluate(expected: "NS1.TEST", response: ns).ok)
        #expect(!DNSExpectation.evaluate(expected: "ns2.test", response: ns).ok)
        let mx = Self.response("test", .mx, [DNSRecord(name: "test", type: .mx, ttl: 1,
                                                        data: .mx(preference: 10, exchange: "mail.test"))])
        #expect(DNSExpectation.evaluate(expected: "10 Mail.Test", response: mx).ok)
        #expect(DNSExpectation.evaluate(expected: "mail.test.", response: mx).ok)
        #expect(DNSExpectation.evaluate(expected: "010 mail.test", response: mx).ok)
        #expect(DNSExpectation.evaluate(expected: "20 mail.test", response: mx)
            == DNSCheckOutcome(ok: false, message: "expected 20 mail.test, got 10 mail.test"))
    }

    @Test func txtExact() {
        let txt = Self.response("test", .txt, [DNSRecord(name: "test", type: .txt, ttl: 1,
                                                          data: .txt(["v=spf1 ", "include:_spf.test -all"]))])
        #expect(DNSExpectation.evaluate(expected: "v=spf1 include:_spf.test -all", response: txt).ok)
        #expect(!DNSExpectation.evaluate(expected: "V=SPF1 include:_spf.test -all", response: txt).ok)
        #expect(!DNSExpectation.evaluate(expected: "v=spf1", response: txt).ok)
    }

    @Test func againstTheRealServer() throws {
        try ClientTests.withServer { server in
            let client = DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 1)
            let www = try client.query("www.test", type: .a)
            let host = try client.query("host.test", type: .aaaa)
            let gone = try client.query("gone.test", type: .a)
            #expect(DNSExpectation.evaluate(expected: "10.0.0.6", response: www).ok)
            #expect(DNSExpectation.evaluate(expected: "2001:db8:0::1", response: host).ok)
            #expect(DNSExpectation.evaluate(expected: nil, response: gone).message == "NXDOMAIN")
        }
    }
}
