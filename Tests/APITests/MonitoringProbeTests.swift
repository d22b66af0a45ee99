import Core
import DNS
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// TCP and DNS monitors against real loopback servers.
@Suite struct MonitoringProbeTests {
    @Test func tcpPortThatAcceptsIsUpAndClosedIsDown() throws {
        let server = try #require(RawServer { _ in })
        let hub = try MonitoringHub()
        let (id, m) = try hub.createChecked(monitorBody("tcp", type: "tcp", target: "127.0.0.1:\(server.port)"))
        #expect(m["status"]?.stringValue == "up", "\(m.text)")
        #expect(m["last_check"]?["latency_ms"]?.intValue != nil)
        #expect(m["last_check"]?["error"] == .null)
        #expect(m["cert_expiry_days"] == .null, "tcp monitors track no certificate")
        server.stop()
        let r = try hub.check(id)
        #expect(r["monitor"]?["status"]?.stringValue == "down")
        let error = r["results"]?.arrayValue?.first?["error"]?.stringValue ?? ""
        #expect(!error.isEmpty)
        let incident = try hub.incident(try #require(r["monitor"]?["open_incident_id"]?.intValue))
        #expect(incident["cause"]?.stringValue == error)
        #expect(try hub.events(id).map(\.kind) == ["monitor_down"])
    }

    @Test func dnsRecordsMatchMismatchAndNXDomain() throws {
        let a = DNSRecord(name: "svc.test", type: .a, ttl: 60, data: .a([10, 0, 0, 5]))
        let dns = try TestDNSServer([
            TestDNSServer.key("svc.test", .a): .records([a]),
            TestDNSServer.key("gone.test", .a): .nxDomain,
        ])
        defer { dns.stop() }
        let hub = try MonitoringHub()
        func dnsMonitor(_ name: String, _ target: String, expected: String?) -> JSON {
            monitorBody(name, type: "dns", target: target,
                        [("dns", ["record_type": "A", "expected": .from(expected), "resolver": .string(dns.address)])])
        }
        let match = try hub.createChecked(dnsMonitor("match", "svc.test", expected: "10.0.0.5"))
        #expect(match.monitor["status"]?.stringValue == "up", "\(match.monitor.text)")
        #expect(match.monitor["dns"]?["resolver"]?.stringValue == dns.address)
        #expect(match.monitor["dns"]?["record_type"]?.stringValue == "A")
        let any = try hub.createChecked(dnsMonitor("any answer", "svc.test", expected: nil))
        #expect(any.monitor["status"]?.stringValue == "up")

        let mismatch = try hub.createChecked(dnsMonitor("mismatch", "svc.test", expected: "10.0.0.6"))
        #expect(mismatch.monitor["status"]?.stringValue == "down")
        #expect(mismatch.monitor["last_check"]?["error"]?.stringValue == "expected 10.0.0.6, got 10.0.0.5")
        let incident = try #require(try hub.incidents(mismatch.id, status: "open").first)
        #expect(incident["cause"]?.stringValue == "expected 10.0.0.6, got 10.0.0.5")

        let gone = try hub.createChecked(dnsMonitor("nxdomain", "gone.test", expected: nil))
        #expect(gone.monitor["status"]?.stringValue == "down")
        #expect(gone.monitor["last_check"]?["error"]?.stringValue?.contains("NXDOMAIN") == true,
                "\(gone.monitor["last_check"]?.text ?? "")")
        // Fix the expectation: the next check is up and the incident closes.
        _ = try expectJSON(try hub.call("PATCH", "/api/monitors/\(mismatch.id)", json: ["dns": ["expected": "10.0.0.5"]]))
        let fixed = try hub.check(mismatch.id)
        #expect(fixed["monitor"]?["status"]?.stringValue == "up")
        #expect(fixed["monitor"]?["dns"]?["resolver"]?.stringValue == dns.address, "PATCH merges nested settings")
        #expect(try hub.incidents(mismatch.id, status: "open").isEmpty)
        #expect(dns.udpQueries.load(ordering: .relaxed) >= 5)
    }
}
