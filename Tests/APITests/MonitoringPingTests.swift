import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Ping monitors end to end (SPEC §12): the binary sends ICMP echoes.
/// They need ICMP datagram sockets (net.ipv4.ping_group_range) or raw ones
/// (CAP_NET_RAW); on a machine with neither the test says so instead.
@Suite struct MonitoringPingTests {
    static func icmpAllowed(_ type: Int32) -> Bool {
        let fd = socket(AF_INET, type, Int32(IPPROTO_ICMP))
        if fd >= 0 { close(fd) }
        return fd >= 0
    }
    static let icmp = icmpAllowed(Int32(SOCK_DGRAM.rawValue)) || icmpAllowed(Int32(SOCK_RAW.rawValue))

    @Test(.enabled(if: icmp, "neither ICMP datagram sockets (net.ipv4.ping_group_range) nor raw ones (CAP_NET_RAW) are allowed here"))
    func pingLoopbackIsUpWithoutLoss() throws {
        let hub = try MonitoringHub()
        let (id, m) = try hub.createChecked(monitorBody("loopback", type: "ping", target: "127.0.0.1", [("ping", ["count": 3])]))
        #expect(m["ping"] == ["count": 3])
        #expect(m["status"]?.stringValue == "up", "\(m["last_check"] ?? .null)")
        #expect(m["last_check"]?["packet_loss"] == 0)
        let r = try #require(try hub.check(id)["results"]?.arrayValue?.first)
        #expect(r["status"]?.stringValue == "up")
        #expect(r["packet_loss"] == 0)
        #expect(r["error"] == .null)
        #expect((r["latency_ms"]?.intValue ?? -1) >= 0)
        let history = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results"))
        let stored = history["items"]?.arrayValue ?? []
        #expect(stored.count == 2 && stored.allSatisfy { $0["packet_loss"] == 0 }, "\(history)")
    }

    @Test(.enabled(if: icmp, "neither ICMP datagram sockets (net.ipv4.ping_group_range) nor raw ones (CAP_NET_RAW) are allowed here"))
    func unansweredPingIsDownWithFullLoss() throws {
        let hub = try MonitoringHub()
        // TEST-NET-2 (RFC 5737): nothing answers.
        let (id, m) = try hub.createChecked(monitorBody("nowhere", type: "ping", target: "198.51.100.1",
                                                        [("timeout", 1), ("ping", ["count": 2])]))
        #expect(m["status"]?.stringValue == "down")
        #expect(m["last_check"]?["packet_loss"] == 1)
        let error = m["last_check"]?["error"]?.stringValue ?? ""
        #expect(error == "no echo reply from 198.51.100.1 (2 sent)" || error.hasPrefix("ICMP send"), "\(error)")
        let incidentID = try #require(m["open_incident_id"]?.intValue)
        #expect(try hub.incident(incidentID)["cause"]?.stringValue == error)
        _ = id
    }

    @Test func pingSettingsAreValidated() throws {
        let hub = try MonitoringHub()
        let cases: [(JSON, String)] = [
            (monitorBody("p", type: "ping", target: "127.0.0.1", [("ping", ["count": 11])]), "ping.count"),
            (monitorBody("p", type: "ping", target: "127.0.0.1", [("ping", ["count": 0])]), "ping.count"),
            (monitorBody("p", type: "ping", target: "127.0.0.1:80"), "target"),
            (monitorBody("p", type: "ping", target: nil), "target"),
            (monitorBody("p", type: "tcp", target: "127.0.0.1:80", [("ping", ["count": 3])]), "ping"),
        ]
        for (body, field) in cases {
            expectError(try hub.call("POST", "/api/monitors", json: body), 400, "validation_failed", field: field)
        }
        let v6 = try hub.create(monitorBody("v6", type: "ping", target: "::1"))
        #expect(v6["ping"] == ["count": 3], "count defaults to 3")
    }
}
