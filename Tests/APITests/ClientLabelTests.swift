@testable import API
import Testing

/// What the phone shows of the browser asking to sign in (SPEC §11).
@Suite struct ClientLabelTests {
    static let cases: [(ua: String?, browser: String)] = [
        ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox"),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "Chrome"),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0",
         "Edge"),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
         "Safari"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0 Mobile/15E148",
         "Chrome"),
        ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 OPR/111.0", "Opera"),
        ("curl/8.5.0", "curl"),
        ("python-requests/2.31.0", "python-requests"),
        (nil, "unknown browser"),
        ("", "unknown browser"),
        ("\u{1}\u{7}", "unknown browser"),
        // Control and bidi-override characters never reach the phone's screen.
        ("Evil\r\nX-Injected: 1", "EvilX-Injected:"),
        ("\u{202E}xoferiF", "xoferiF"),
    ]

    @Test func browserNames() {
        for c in Self.cases {
            #expect(ClientLabel.browser(c.ua) == c.browser, "\(String(describing: c.ua))")
        }
    }

    @Test func addressAndBrowserBounded() {
        #expect(ClientLabel.describe(address: "127.0.0.1", userAgent: "Mozilla/5.0 (X11; rv:128.0) Gecko/20100101 Firefox/128.0")
            == "127.0.0.1 · Firefox")
        #expect(ClientLabel.describe(address: "2001:db8::1", userAgent: nil) == "2001:db8::1 · unknown browser")
        let long = ClientLabel.browser(String(repeating: "A", count: 5000) + "/1.0")
        #expect(long.count == ClientLabel.maxBrowserLength && long.hasSuffix("…"))
        let label = ClientLabel.describe(address: String(repeating: "9", count: 500), userAgent: String(repeating: "b", count: 500))
        #expect(label.count <= ClientLabel.maxAddressLength + 3 + ClientLabel.maxBrowserLength)
        #expect(!label.unicodeScalars.contains { $0.value < 0x20 })
    }
}
