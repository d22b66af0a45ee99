import Core
import Net
import TestSupport
import Testing

/// `[checks] source_address`: the engine binds every connection to the
/// chosen local address before connecting, and the server sees it.
@Suite(.serialized) struct SourceAddressTests {
    @Test func httpRequestsComeFromTheChosenAddress() throws {
        let target = try ClientAddressTarget(healthyFor: ["127.0.0.2"])
        defer { target.stop() }
        for (source, status) in [("127.0.0.2", 200), ("127.0.0.3", 503)] {
            let engine = ClientEngine(sourceAddress: IPAddress(literal: source))
            defer { engine.shutdown() }
            let r = engine.execute(ClientRequest(url: target.url))
            #expect(r.response?.status == status, "\(r.errorDescription ?? "")")
            #expect(String(decoding: r.response?.body ?? [], as: UTF8.self) == source)
        }
        // Without a source address the kernel picks 127.0.0.1 for a 127.0.0.1 target.
        let plain = ClientEngine()
        defer { plain.shutdown() }
        #expect(String(decoding: plain.execute(ClientRequest(url: target.url)).response?.body ?? [], as: UTF8.self) == "127.0.0.1")
        #expect(target.clients == ["127.0.0.2", "127.0.0.3", "127.0.0.1"])
    }

    @Test func tcpProbesBindTooAndOtherFamiliesAreRefused() throws {
        let target = try ClientAddressTarget(healthyFor: [])
        defer { target.stop() }
        let engine = ClientEngine(sourceAddress: IPAddress(literal: "127.0.0.4"))
        defer { engine.shutdown() }
        let probe = engine.connectTCP(host: "127.0.0.1", port: Int(target.port), timeoutMillis: 5000)
        #expect(probe.failure == nil, "\(probe.errorDescription ?? "")")
        // An IPv6 target cannot be reached from an IPv4 source: a clear error, no silent fallback.
        let v6 = engine.execute(ClientRequest(url: "http://[::1]:\(target.port)/whoami"))
        #expect(v6.response == nil)
        #expect(v6.errorDescription?.contains("other address family") == true, "\(v6.errorDescription ?? "")")
        // A source address this host does not have fails the check, naming the address.
        let foreign = ClientEngine(sourceAddress: IPAddress(literal: "192.0.2.55"))
        defer { foreign.shutdown() }
        let r = foreign.execute(ClientRequest(url: target.url))
        #expect(r.errorDescription?.contains("192.0.2.55") == true, "\(r.errorDescription ?? "")")
    }
}
