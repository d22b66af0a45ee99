import Core
import TestSupport
import DNS
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

private func rec(_ name: String, _ type: DNSRecordType, _ data: DNSRecordData, ttl: UInt32 = 300) -> DNSRecord {
    DNSRecord(name: name, type: type, ttl: ttl, data: data)
}

private func v4(_ s: String) -> DNSRecordData { .a(IPAddressText.parseIPv4(s)!) }
private func v6(_ s: String) -> DNSRecordData { .aaaa(IPAddressText.parseIPv6(s)!) }

private func seconds(since start: UInt64) -> Double { Double(Time.monotonicNanos() - start) / 1e9 }

/// A UDP port on 127.0.0.1 with nothing bound to it (bound, then closed).
private func closedUDPPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let rc = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Int32 in
            guard bind(fd, p, len) == 0 else { return -1 }
            return getsockname(fd, p, &len)
        }
    }
    guard rc == 0 else { throw SystemError("bind", errno: errno) }
    return UInt16(bigEndian: addr.sin_port)
}

/// Client behaviour against `TestDNSServer` over real loopback sockets.
@Suite struct ClientTests {
    static let zone: [String: TestDNSServer.Behavior] = [
        TestDNSServer.key("host.test", .a): .records([rec("host.test", .a, v4("10.0.0.6")),
                                                       rec("host.test", .a, v4("10.0.0.7"))]),
        TestDNSServer.key("host.test", .aaaa): .records([rec("host.test", .aaaa, v6("2001:db8:0::1"))]),
        TestDNSServer.key("www.test", .cname): .records([rec("www.test", .cname, .cname("host.test"))]),
        TestDNSServer.key("www.test", .a): .records([rec("www.test", .cname, .cname("host.test")),
                                                      rec("host.test", .a, v4("10.0.0.6"))]),
        TestDNSServer.key("test", .mx): .records([rec("test", .mx, .mx(preference: 10, exchange: "mail.test")),
                                                  rec("test", .mx, .mx(preference: 20, exchange: "backup.mail.test"))]),
        TestDNSServer.key("test", .ns): .records([rec("test", .ns, .ns("ns1.test")), rec("test", .ns, .ns("ns2.test"))]),
        TestDNSServer.key("test", .txt): .records([rec("test", .txt, .txt(["v=spf1 ", "include:_spf.test -all"])),
                                                   rec("test", .txt, .txt(["hello world"]))]),
        TestDNSServer.key("big.test", .txt): .records((0..<40).map {
            rec("big.test", .txt, .txt(["record \($0) " + String(repeating: "x", count: 60)]))
        }),
        TestDNSServer.key("fail.test", .a): .servFail,
        TestDNSServer.key("gone.test", .a): .nxDomain,
        TestDNSServer.key("silent.test", .a): .drop,
        TestDNSServer.key("spoof.test", .a): .wrongIDFirst([rec("spoof.test", .a, v4("192.0.2.10"))]),
        TestDNSServer.key("spoofq.test", .a): .wrongQuestionFirst([rec("spoofq.test", .a, v4("192.0.2.11"))]),
        TestDNSServer.key("junk.test", .a): .garbage,
        TestDNSServer.key("old.test", .a): .formErrIfEDNS([rec("old.test", .a, v4("192.0.2.12"))]),
    ]

    static func withServer<R>(_ body: (TestDNSServer) throws -> R) throws -> R {
        let server = try TestDNSServer(zone)
        defer { server.stop() }
        return try body(server)
    }

    @Test func aRecords() throws {
        try Self.withServer { server in
            let client = DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 1)
            let r = try client.query("HOST.test.", type: .a)
            #expect(r.rcode == .noError)
            #expect(r.name == "host.test" && r.type == .a)
            #expect(r.answers.map(\.value) == ["10.0.0.6", "10.0.0.7"])
            #expect(r.answers.allSatisfy { $0.name == "host.test" && $0.ttl == 300 && $0.type == .a })
            #expect(r.authoritative)
            #expect(!r.truncatedRetriedOverTCP)
            #expect(r.server == "127.0.0.1:\(server.port)")
            #expect(r.latencyMs > 0 && r.latencyMs < 2000)
            #expect(server.tcpQueries.load(ordering: .relaxed) == 0)
            #expect(server.ednsQueries.load(ordering: .relaxed) == 1)
        }
    }

    @Test func otherRecordTypes() throws {
        try Self.withServer { server in
            let client = DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 1)
            #expect(try client.query("host.test", type: .aaaa).answers.map(\.value) == ["2001:db8::1"])
            #expect(try client.query("www.test", type: .cname).answers.map(\.value) == ["host.test"])
            #expect(try client.query("test", type: .mx).answers.map(\.value) == ["10 mail.test", "20 backup.mail.test"])
            #expect(try client.query("test", type: .ns).answers.map(\.value) == ["ns1.test", "ns2.test"])
            let txt = try client.query("test", type: .txt).answers
            #expect(txt.map(\.value) == ["v=spf1 include:_spf.test -all", "hello world"])
            #expect(txt[0].data == .txt(["v=spf1 ", "include:_spf.test -all"]))
            let chained = try client.query("www.test", type: .a)
            #expect(chained.answers.map(\.type) == [.cname, .a])
        }
    }

    @Test func nxDomainAndNoData() throws {
        try Self.withServer { server in
            let client = DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 1)
            let gone = try client.query("gone.test", type: .a)
            #expect(gone.rcode == .nxDomain)
            #expect(gone.answers.isEmpty)
            #expect(gone.authority.first?.type == .soa)
            let unknown = try client.query("never-heard-of.test", type: .a)
            #expect(unknown.rcode == .nxDomain)
            let noData = try client.query("host.test", type: .mx)
            #expect(noData.rcode == .noError && noData.answers.isEmpty)
        }
    }

    @Test func servFailFromTheOnlyServerIsReturned() throws {
        try Self.withServer { server in
            let r = try DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 2).query("fail.test", type: .a)
            #expect(r.rcode == .servFail)
            #expect(server.udpQueries.load(ordering: .relaxed) == 1)
        }
    }

    @Test func servFailMovesOnToTheNextServer() throws {
        let failing = try TestDNSServer([TestDNSServer.key("x.test", .a): .servFail])
        defer { failing.stop() }
        let good = try TestDNSServer([TestDNSServer.key("x.test", .a): .records([rec("x.test", .a, v4("192.0.2.1"))])])
        defer { good.stop() }
        let r = try DNSClient(servers: [failing.address, good.address], timeoutMillis: 2000).query("x.test", type: .a)
        #expect(r.rcode == .noError && r.server == good.address)
        // Both failing: the first SERVFAIL comes back, each server asked once.
        let r2 = try DNSClient(servers: [failing.address, failing.address], timeoutMillis: 2000).query("x.test", type: .a)
        #expect(r2.rcode == .servFail)
    }

    @Test func truncatedUDPAnswerIsRetriedOverTCP() throws {
        try Self.withServer { server in
            let r = try DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 1).query("big.test", type: .txt)
            #expect(r.truncatedRetriedOverTCP)
            #expect(r.rcode == .noError)
            #expect(r.answers.count == 40)
            #expect(r.answers.last?.value == "record 39 " + String(repeating: "x", count: 60))
            #expect(server.udpQueries.load(ordering: .relaxed) == 1)
            #expect(server.tcpQueries.load(ordering: .relaxed) == 1)
        }
    }

    @Test func timeoutWithinBounds() throws {
        let server = try TestDNSServer(dropAll: true)
        defer { server.stop() }
        let start = Time.monotonicNanos()
        #expect(throws: DNSError.timeout) {
            try DNSClient(servers: [server.address], timeoutMillis: 300, attempts: 2).query("any.test", type: .a)
        }
        let elapsed = seconds(since: start)
        #expect(elapsed >= 0.55 && elapsed < 2, "took \(elapsed) s")
        #expect(server.udpQueries.load(ordering: .relaxed) == 2)
    }

    @Test func wrongIDAnswerIsIgnored() throws {
        try Self.withServer { server in
            let r = try DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 1).query("spoof.test", type: .a)
            #expect(r.answers.map(\.value) == ["192.0.2.10"])
            #expect(r.latencyMs < 1000)
        }
    }

    @Test func answerForAnotherQuestionIsIgnored() throws {
        try Self.withServer { server in
            let r = try DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 1).query("spoofq.test", type: .a)
            #expect(r.answers.map(\.value) == ["192.0.2.11"])
        }
    }

    @Test func unparseableAnswerWithOurIDIsReportedAfterTheDeadline() throws {
        try Self.withServer { server in
            let start = Time.monotonicNanos()
            #expect {
                try DNSClient(servers: [server.address], timeoutMillis: 300, attempts: 1).query("junk.test", type: .a)
            } throws: { error in
                if case .malformedResponse? = error as? DNSError { return true }
                return false
            }
            #expect(seconds(since: start) < 2)
        }
    }

    @Test func formErrToEDNSIsRetriedWithoutIt() throws {
        try Self.withServer { server in
            let r = try DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 1).query("old.test", type: .a)
            #expect(r.rcode == .noError && r.answers.map(\.value) == ["192.0.2.12"])
            #expect(server.udpQueries.load(ordering: .relaxed) == 2)
        }
    }

    @Test func secondServerUsedWhenTheFirstIsSilent() throws {
        let silent = try TestDNSServer(dropAll: true)
        defer { silent.stop() }
        try Self.withServer { server in
            let start = Time.monotonicNanos()
            let r = try DNSClient(servers: [silent.address, server.address], timeoutMillis: 300, attempts: 2)
                .query("host.test", type: .a)
            #expect(r.server == server.address)
            #expect(r.answers.count == 2)
            #expect(seconds(since: start) >= 0.25 && seconds(since: start) < 2)
            #expect(silent.udpQueries.load(ordering: .relaxed) == 1)
        }
    }

    @Test func refusedPortMovesOnAtOnce() throws {
        let port = try closedUDPPort()
        try Self.withServer { server in
            let start = Time.monotonicNanos()
            let r = try DNSClient(servers: ["127.0.0.1:\(port)", server.address], timeoutMillis: 3000, attempts: 1)
                .query("host.test", type: .a)
            #expect(r.server == server.address)
            #expect(seconds(since: start) < 1)
        }
        #expect {
            try DNSClient(servers: ["127.0.0.1:\(port)"], timeoutMillis: 3000, attempts: 1).query("a.test", type: .a)
        } throws: { error in
            if case .network(let m)? = error as? DNSError { return m.contains("refused") }
            return false
        }
    }

    @Test func tcpClosedAfterTruncationIsANetworkError() throws {
        let zone: [String: TestDNSServer.Behavior] = [
            TestDNSServer.key("big.test", .txt): .tcpClosesEarly((0..<40).map {
                rec("big.test", .txt, .txt([String(repeating: "y", count: 70) + "\($0)"]))
            }),
        ]
        let server = try TestDNSServer(zone)
        defer { server.stop() }
        #expect {
            try DNSClient(servers: [server.address], timeoutMillis: 1000, attempts: 1).query("big.test", type: .txt)
        } throws: { error in
            if case .network(let m)? = error as? DNSError { return m.contains("closed") }
            return false
        }
        #expect(server.tcpQueries.load(ordering: .relaxed) == 1)
    }

    @Test func invalidInputs() {
        #expect(throws: DNSError.invalidName("empty label in \"a..test\"")) {
            try DNSClient(servers: ["127.0.0.1:9"], timeoutMillis: 100, attempts: 1).query("a..test", type: .a)
        }
        #expect {
            try DNSClient(servers: ["dns.google"], timeoutMillis: 100, attempts: 1).query("a.test", type: .a)
        } throws: { error in
            if case .network(let m)? = error as? DNSError { return m.contains("invalid DNS server address") }
            return false
        }
    }

    @Test func concurrentQueriesFromSeveralThreads() throws {
        try Self.withServer { server in
            let client = DNSClient(servers: [server.address], timeoutMillis: 2000, attempts: 1)
            let counts = Mutex<[Int]>([])
            let handles = (0..<8).map { i in
                startThread(name: "q\(i)") {
                    let r = try? client.query(i % 2 == 0 ? "host.test" : "test", type: i % 2 == 0 ? .a : .mx)
                    counts.withLock { $0.append(r?.answers.count ?? -1) }
                }
            }
            for h in handles { h.join() }
            #expect(counts.withLock { $0 } == Array(repeating: 2, count: 8))
        }
    }
}

@Suite struct ConfigurationTests {
    @Test func resolvConfParsing() {
        let text = """
        # generated
        search example.com corp.example
        nameserver 10.0.0.53   # primary
        nameserver 2606:4700::1111
        ; a comment
        nameserver not-an-address
        options ndots:2 timeout:3 rotate
        options attempts:4
        nameserver 10.0.0.54
        nameserver 10.0.0.55
        """
        let conf = ResolvConf.parse(text)
        #expect(conf.nameservers == ["10.0.0.53", "2606:4700::1111", "10.0.0.54"])
        #expect(conf.timeoutSeconds == 3)
        #expect(conf.attempts == 4)

        let capped = ResolvConf.parse("options timeout:0 attempts:99\noptions timeout:600\n")
        #expect(capped.timeoutSeconds == 30 && capped.attempts == 5 && capped.nameservers.isEmpty)
        #expect(ResolvConf.parse("") == ResolvConf())
    }

    @Test func clientSettingsFromResolvConf() {
        let conf = ResolvConf.parse("nameserver 192.0.2.53\noptions timeout:2 attempts:3\n")
        let client = DNSClient(resolvConf: conf)
        #expect(client.servers == ["192.0.2.53"] && client.timeoutMillis == 2000 && client.attempts == 3)
        let explicit = DNSClient(resolvConf: conf, timeoutMillis: 250, attempts: 1)
        #expect(explicit.timeoutMillis == 250 && explicit.attempts == 1)
        let empty = DNSClient(resolvConf: ResolvConf())
        #expect(empty.servers == ["127.0.0.1"] && empty.timeoutMillis == 5000 && empty.attempts == 2)
        let given = DNSClient(servers: ["192.0.2.1"])
        #expect(given.timeoutMillis == 5000 && given.attempts == 2)
        // The machine's own file (whatever it lists) gives at least one server.
        #expect(!DNSClient().servers.isEmpty)
    }

    @Test func serverAddressForms() throws {
        let cases: [(String, String)] = [
            ("1.1.1.1", "1.1.1.1:53"),
            ("1.1.1.1:5353", "1.1.1.1:5353"),
            ("[2606:4700::1111]:53", "[2606:4700::1111]:53"),
            ("[2606:4700:0::1111]", "[2606:4700::1111]:53"),
            ("::1", "[::1]:53"),
            ("2001:DB8::53", "[2001:db8::53]:53"),
            ("fe80::1%1", "[fe80::1%1]:53"),
            ("[fe80::1%lo]:5300", "[fe80::1%lo]:5300"),
        ]
        for (text, description) in cases {
            let a = try #require(DNSServerAddress(parsing: text), "\(text)")
            #expect(a.description == description)
        }
        for bad in ["", "dns.google", "1.1.1.1:", "1.1.1.1:0", "1.1.1.1:70000", "[::1", "[::1]x", "[1.1.1.1]:53",
                    "1.1.1.1%eth0", "::1:53:", "fe80::1%no-such-interface"] {
            #expect(DNSServerAddress(parsing: bad) == nil, "\(bad)")
        }
    }
}
