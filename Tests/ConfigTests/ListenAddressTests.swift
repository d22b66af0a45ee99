import Testing
@testable import Config

@Suite struct ListenAddressTests {
    @Test func valid() throws {
        let cases: [(String, String, Int, ListenAddress.Family)] = [
            ("127.0.0.1:8080", "127.0.0.1", 8080, .ipv4),
            ("0.0.0.0:0", "0.0.0.0", 0, .ipv4),
            ("[::1]:8080", "::1", 8080, .ipv6),
            ("[::]:65535", "::", 65535, .ipv6),
            ("[2001:db8::1]:443", "2001:db8::1", 443, .ipv6),
            ("localhost:80", "localhost", 80, .hostname),
            ("hub.example.com:8080", "hub.example.com", 8080, .hostname),
        ]
        for (text, host, port, family) in cases {
            let address = try ListenAddress(parsing: text)
            #expect(address == ListenAddress(host: host, port: port, family: family))
            #expect(address.description == text)
        }
    }

    @Test func invalid() {
        let cases: [(String, String)] = [
            ("127.0.0.1:65536", "port must be between 0 and 65535"),
            ("127.0.0.1:99999999", "invalid port"),
            ("127.0.0.1:-1", "invalid port"),
            ("127.0.0.1:http", "invalid port"),
            ("127.0.0.1:", "invalid port"),
            ("127.0.0.1", "missing port"),
            ("::1:8080", "IPv6 addresses must be in brackets"),
            ("[::1]8080", "missing ':port' after ']'"),
            ("[::1:8080", "missing ']'"),
            ("[127.0.0.1]:80", "invalid IPv6 address"),
            ("256.1.1.1:80", "invalid IPv4 address"),
            (":8080", "missing host"),
            ("bad_host:80", "invalid host name"),
            ("", "is empty"),
        ]
        for (text, message) in cases {
            do {
                let address = try ListenAddress(parsing: text)
                Issue.record("\(text) parsed as \(address)")
            } catch {
                #expect(error.message.contains(message), "\(text): \(error.message)")
            }
        }
    }

    @Test func networks() throws {
        let net = try IPNetwork(parsing: "10.0.0.0/8")
        #expect(net.contains("10.255.1.2") && !net.contains("11.0.0.1") && net.contains("::ffff:10.1.1.1"))
        let v6 = try IPNetwork(parsing: "fd00::/8")
        #expect(v6.contains("fd12::1") && !v6.contains("fe80::1") && !v6.contains("10.0.0.1"))
        let single = try IPNetwork(parsing: "::1")
        #expect(single.prefixLength == 128 && single.contains("::1") && single.description == "::1")
        #expect(try IPNetwork(parsing: "0.0.0.0/0").contains("8.8.8.8"))
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0/8", "host", "10.0.0.0/a"] {
            #expect(throws: InvalidValue.self, "\(bad)") { try IPNetwork(parsing: bad) }
        }
    }
}
