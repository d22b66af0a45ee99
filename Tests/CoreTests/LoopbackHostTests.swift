import Core
import Testing

/// The one "is this host this machine" rule.
@Suite struct LoopbackHostTests {
    @Test(arguments: ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "0::1"])
    func loopback(_ host: String) { #expect(LoopbackHost.contains(host)) }

    @Test(arguments: ["127.0.0.1.example.com", "127.evil.com", "127.0.0.256", "127.0.0", "128.0.0.1", "10.0.0.1",
                      "::2", "1::1", "::", "x.localhost", "localhost.example.com", "", "[::1", "::1::1"])
    func notLoopback(_ host: String) { #expect(!LoopbackHost.contains(host)) }
}
