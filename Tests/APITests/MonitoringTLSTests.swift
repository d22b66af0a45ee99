import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Certificates end to end: a CA and a server certificate expiring in 5
/// days, made with the openssl CLI in the hub's sandbox; a real TLS server on
/// loopback; the hub trusts the CA through PINGTXT_CHECKS_CA_FILE.
@Suite struct MonitoringTLSTests {
    /// A hub (not started when `trustCA` is set until the CA exists) and a TLS
    /// server presenting the 5-day certificate.
    struct World {
        let hub: MonitoringHub
        let fixture: TLSFixture
        let server: TLSTestServer
    }

    func world(trustCA: Bool) throws -> World {
        let hub = try MonitoringHub(start: false)
        let fixture = try #require(TLSFixture(directory: hub.hub.sandbox.dir), "openssl could not make the test CA")
        if trustCA { hub.hub.sandbox.environment["PINGTXT_CHECKS_CA_FILE"] = fixture.caFile }
        try hub.start()
        let server = try #require(TLSTestServer(cert: fixture.cert("soon"), key: fixture.key("soon")))
        return World(hub: hub, fixture: fixture, server: server)
    }

    /// Checks an `expiry` incident: open, cause "certificate expires in 4|5 days (date)".
    func expectExpiryIncident(_ hub: MonitoringHub, _ id: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let open = try hub.incidents(id, status: "open")
        let expiry = try #require(open.first { $0["kind"]?.stringValue == "expiry" }, "open incidents: \(open)",
                                  sourceLocation: sourceLocation)
        let cause = expiry["cause"]?.stringValue ?? ""
        #expect(cause.hasPrefix("certificate expires in ") && cause.contains(" days ("), "cause \(cause)",
                sourceLocation: sourceLocation)
        #expect(cause.contains("in 4 days") || cause.contains("in 5 days"), "cause \(cause)", sourceLocation: sourceLocation)
    }

    func expectExpiresInFiveDays(_ m: JSON, sourceLocation: SourceLocation = #_sourceLocation) {
        let at = Time.parseRFC3339(m["cert_expires_at"]?.stringValue ?? "") ?? 0
        let expected = Time.now() + 5 * 86_400
        #expect(abs(at - expected) < 3600, "cert_expires_at \(m["cert_expires_at"]?.text ?? "nil")",
                sourceLocation: sourceLocation)
    }

    @Test func httpsMonitorOpensAnExpiryIncident() throws {
        let w = try world(trustCA: true)
        defer { w.server.stop() }
        let hub = w.hub
        let (id, m) = try hub.createChecked(httpMonitor("tls soon", "https://127.0.0.1:\(w.server.port)/",
                                                        [("cert_expiry_days", 14)]))
        #expect(m["status"]?.stringValue == "up", "\(m.text)")
        #expect(m["cert_expiry_days"]?.intValue == 14)
        expectExpiresInFiveDays(m)
        try expectExpiryIncident(hub, id)
        // Created pending: the first result sends nothing (StateMachine rule 5).
        #expect(try hub.events(id).isEmpty)
        // A later check keeps the one incident and adds nothing.
        #expect(try hub.check(id)["monitor"]?["status"]?.stringValue == "up")
        #expect(try hub.incidents(id, status: "open").count == 1)
        // The threshold lowered below 5 days closes it ("certificate renewed" path).
        _ = try expectJSON(try hub.call("PATCH", "/api/monitors/\(id)", json: ["cert_expiry_days": 3]))
        try hub.check(id)
        #expect(try hub.incidents(id, status: "open").isEmpty)
        // Raised again, on a monitor already up: now the expiry event is sent.
        _ = try expectJSON(try hub.call("PATCH", "/api/monitors/\(id)", json: ["cert_expiry_days": 14]))
        try hub.check(id)
        try expectExpiryIncident(hub, id)
        let events = try hub.events(id)
        #expect(events.map(\.kind) == ["expiry"])
        #expect(events.first?.cause.contains("days") == true)
        #expect(events.first?.suppressed == false)
    }

    @Test func tlsMonitorOpensAnExpiryIncidentAndSendsTheEvent() throws {
        let w = try world(trustCA: true)
        defer { w.server.stop() }
        let hub = w.hub
        // Created paused (no check on creation), then resumed → pending → first check.
        let created = try hub.create(monitorBody("tls port", type: "tls", target: "127.0.0.1:\(w.server.port)",
                                                 [("cert_expiry_days", 14)]))
        let id = try #require(created["id"]?.intValue)
        #expect(created["cert_expiry_days"]?.intValue == 14)
        let m = try hub.waitFor("first tls check", { $0["last_check"] != .null }) { try hub.monitor(id) }
        #expect(m["status"]?.stringValue == "up", "\(m.text)")
        expectExpiresInFiveDays(m)
        try expectExpiryIncident(hub, id)
        // Default threshold on tls monitors is 14 days too.
        let defaulted = try hub.create(monitorBody("tls default", type: "tls", target: "127.0.0.1:\(w.server.port)"))
        #expect(defaulted["cert_expiry_days"]?.intValue == 14)
    }

    @Test func anUntrustedCertificateIsDown() throws {
        let w = try world(trustCA: false)
        defer { w.server.stop() }
        let hub = w.hub
        let (id, m) = try hub.createChecked(httpMonitor("untrusted", "https://127.0.0.1:\(w.server.port)/"))
        #expect(m["status"]?.stringValue == "down")
        let error = m["last_check"]?["error"]?.stringValue ?? ""
        #expect(error.hasPrefix("TLS: "), "error \(error)")
        let incident = try #require(try hub.incidents(id, status: "open").first { $0["kind"]?.stringValue == "down" })
        #expect(incident["cause"]?.stringValue == error)
        // The tls monitor type verifies as well.
        let tls = try hub.createChecked(monitorBody("untrusted tls", type: "tls", target: "127.0.0.1:\(w.server.port)"))
        #expect(tls.monitor["status"]?.stringValue == "down")
        #expect(tls.monitor["last_check"]?["error"]?.stringValue?.hasPrefix("TLS: ") == true)
    }

    @Test func verifyTLSFalseIsUpButStillTracksExpiry() throws {
        let w = try world(trustCA: false)
        defer { w.server.stop() }
        let hub = w.hub
        let (id, m) = try hub.createChecked(httpMonitor("unverified", "https://127.0.0.1:\(w.server.port)/",
                                                        [("http", ["verify_tls": false])]))
        #expect(m["status"]?.stringValue == "up", "\(m.text)")
        #expect(m["http"]?["verify_tls"] == .bool(false))
        #expect(m["cert_expiry_days"]?.intValue == 14, "https monitors track expiry by default")
        expectExpiresInFiveDays(m)
        try expectExpiryIncident(hub, id)
    }
}
