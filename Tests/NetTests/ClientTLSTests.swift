import Core
import TestSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import Net
import Testing

/// Certificates are made once per test process (openssl CLI, temporary dir).
let tlsFixture: TLSFixture? = TLSFixture()

@Suite(.serialized) struct ClientTLSTests {
    static func withServer(_ name: String, _ body: (TLSFixture, TLSTestServer) throws -> Void) throws {
        let fx = try #require(tlsFixture, "openssl CLI could not make the test certificates")
        let server = try #require(TLSTestServer(cert: fx.cert(name), key: fx.key(name)))
        defer { server.stop() }
        try body(fx, server)
    }

    @Test func validCertificateVerifies() throws {
        try Self.withServer("valid") { fx, server in
            let engine = ClientEngine(extraCAFile: fx.caFile)
            defer { engine.shutdown() }
            let r = engine.execute(ClientRequest(url: "https://localhost:\(server.port)/"))
            #expect(r.failure == nil, "\(r.errorDescription ?? "")")
            #expect(r.response?.status == 200 && r.response?.body == Array("ok".utf8))
            let tls = try #require(r.tls)
            #expect(tls.verified && tls.verifyError == nil && tls.hostnameMatches)
            #expect(abs(tls.notAfter - (Time.now() + 30 * 86_400)) < 600)
            // 30 days from the fixture's creation: 29 once a second has passed,
            // 30 when the check lands in the same second.
            #expect((29...30).contains(tls.daysUntilExpiry(now: Time.now())))
            #expect(tls.subject == "CN=localhost")
            #expect(tls.issuer == "CN=pingtxt test CA")
            #expect(tls.dnsNames == ["localhost"])
            #expect(tls.protocolVersion == "TLSv1.3" || tls.protocolVersion == "TLSv1.2")
            #expect(r.timings.tlsMs > 0 && r.timings.connectMs > 0 && r.timings.firstByteMs > 0)

            // The IP SAN verifies an IP literal (no SNI sent).
            let ip = engine.execute(ClientRequest(url: "https://127.0.0.1:\(server.port)/"))
            #expect(ip.failure == nil && ip.tls?.verified == true, "\(ip.errorDescription ?? "")")

            let probe = engine.probeTLS(host: "127.0.0.1", port: Int(server.port), serverName: "localhost",
                                        timeoutMillis: 2000, verify: true)
            #expect(probe.failure == nil && probe.tls?.verified == true && probe.timings.tlsMs > 0)
        }
    }

    @Test func untrustedWithoutTheExtraCA() throws {
        try Self.withServer("valid") { _, server in
            let engine = ClientEngine()
            defer { engine.shutdown() }
            let r = engine.execute(ClientRequest(url: "https://localhost:\(server.port)/"))
            guard case .tls(let why) = r.failure else { Issue.record("expected a TLS failure: \(r)"); return }
            #expect(why.contains("issuer") || why.contains("self-signed") || why.contains("self signed"), "\(why)")
            #expect(r.tls?.verified == false && r.tls?.hostnameMatches == true)
            var lax = ClientRequest(url: "https://localhost:\(server.port)/")
            lax.verifyTLS = false
            #expect(engine.execute(lax).response?.status == 200)
        }
    }

    @Test func expiresInFiveDays() throws {
        try Self.withServer("soon") { fx, server in
            let engine = ClientEngine(extraCAFile: fx.caFile)
            defer { engine.shutdown() }
            let r = engine.execute(ClientRequest(url: "https://localhost:\(server.port)/"))
            #expect(r.failure == nil, "\(r.errorDescription ?? "")")
            let tls = try #require(r.tls)
            let left = tls.notAfter - Time.now()
            #expect(left > 4 * 86_400 && left <= 5 * 86_400 + 600)
            #expect((4...5).contains(tls.daysUntilExpiry(now: Time.now())))
        }
    }

    @Test func expiredCertificateFailsButIsStillDescribed() throws {
        try Self.withServer("expired") { fx, server in
            let engine = ClientEngine(extraCAFile: fx.caFile)
            defer { engine.shutdown() }
            let r = engine.execute(ClientRequest(url: "https://localhost:\(server.port)/"))
            #expect(r.failure == .tls("certificate has expired"))
            #expect(r.errorDescription == "TLS: certificate has expired")
            #expect(r.response == nil)
            let tls = try #require(r.tls)
            #expect(!tls.verified && tls.verifyError == "certificate has expired")
            #expect(tls.notAfter == 1_580_515_200)   // 2020-02-01T00:00:00Z
            #expect(tls.notBefore == 1_577_836_800)  // 2020-01-01T00:00:00Z

            let probe = engine.probeTLS(host: "localhost", port: Int(server.port), timeoutMillis: 2000, verify: false)
            #expect(probe.failure == nil && probe.tls?.verified == false && probe.tls?.notAfter == 1_580_515_200)
            let strict = engine.probeTLS(host: "localhost", port: Int(server.port), timeoutMillis: 2000, verify: true)
            #expect(strict.failure == .tls("certificate has expired") && strict.tls != nil)
        }
    }

    @Test func wrongHostname() throws {
        try Self.withServer("wronghost") { fx, server in
            let engine = ClientEngine(extraCAFile: fx.caFile)
            defer { engine.shutdown() }
            let r = engine.execute(ClientRequest(url: "https://localhost:\(server.port)/"))
            #expect(r.failure == .tls("hostname mismatch"), "\(r.errorDescription ?? "")")
            #expect(r.tls?.hostnameMatches == false && r.tls?.dnsNames == ["wrong.example"])

            var lax = ClientRequest(url: "https://localhost:\(server.port)/")
            lax.verifyTLS = false
            let ok = engine.execute(lax)
            #expect(ok.failure == nil && ok.response?.status == 200)
            #expect(ok.tls?.verified == false && ok.tls?.verifyError == "hostname mismatch")

            // Asking for the name on the certificate verifies.
            let probe = engine.probeTLS(host: "127.0.0.1", port: Int(server.port), serverName: "wrong.example",
                                        timeoutMillis: 2000, verify: true)
            #expect(probe.failure == nil && probe.tls?.hostnameMatches == true, "\(probe.errorDescription ?? "")")
        }
    }

    @Test func plainServerOnATLSPortAndBadCAFile() throws {
        let server = try #require(RawServer { fd in
            var buf = [UInt8](repeating: 0, count: 4096)
            _ = read(fd, &buf, buf.count)  // a ClientHello, answered in plain HTTP
            writeAll(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        })
        defer { server.stop() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        var req = ClientRequest(url: "https://127.0.0.1:\(server.port)/")
        req.timeoutMillis = 2000
        let r = engine.execute(req)
        guard case .tls(let why) = r.failure else { Issue.record("expected a TLS failure: \(String(describing: r.failure))"); return }
        #expect(why == "wrong version number" || why == "packet length too long", "\(why)")
        #expect(r.tls == nil)

        let broken = ClientEngine(extraCAFile: "/nonexistent/ca.pem")
        defer { broken.shutdown() }
        let b = broken.execute(ClientRequest(url: "https://127.0.0.1:\(server.port)/"))
        guard case .tls(let why) = b.failure else { Issue.record("expected a TLS failure"); return }
        #expect(why.contains("/nonexistent/ca.pem"))
    }
}
