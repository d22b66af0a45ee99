import HTTP
import Testing

@Suite struct FormCodingTests {
    @Test(arguments: [
        ("", []),
        ("a=1", [("a", "1")]),
        ("a=1&b=x%20y", [("a", "1"), ("b", "x y")]),
        ("q=a+b", [("q", "a b")]),
        ("q=a%2Bb", [("q", "a+b")]),
        ("first+name=Ada+Lovelace", [("first name", "Ada Lovelace")]),
        ("a=1&a=2", [("a", "1"), ("a", "2")]),
        ("flag", [("flag", "")]),
        ("flag&x=1", [("flag", ""), ("x", "1")]),
        ("a=", [("a", "")]),
        ("=v", [("", "v")]),
        ("a=1=2", [("a", "1=2")]),
        ("a=x%3Dy%26z", [("a", "x=y&z")]),
        ("&&a=1&&b=2&", [("a", "1"), ("b", "2")]),
        ("a=%zz", [("a", "%zz")]),
        ("a=%", [("a", "%")]),
        ("a=%4", [("a", "%4")]),
        ("a=%%41", [("a", "%A")]),
        ("a=100%25", [("a", "100%")]),
        ("%zz=1", [("%zz", "1")]),
        ("name=%C3%A9t%C3%A9", [("name", "été")]),
        ("e=%e2%82%ac", [("e", "€")]),
        ("raw=été", [("raw", "été")]),
        ("bad=%FF", [("bad", "\u{FFFD}")]),
        ("nul=%00", [("nul", "\u{0}")]),
    ] as [(String, [(String, String)])])
    func decode(text: String, expected: [(String, String)]) {
        let items = FormCoding.decode(text)
        #expect(items.map(\.name) == expected.map(\.0))
        #expect(items.map(\.value) == expected.map(\.1))
    }

    @Test(arguments: [
        ("a+b", true, "a b"),
        ("a+b", false, "a+b"),
        ("a%20b", false, "a b"),
        ("%41%42%43", false, "ABC"),
        ("%e9", false, "\u{FFFD}"),
        ("%", false, "%"),
        ("%g1", false, "%g1"),
        ("%1g", false, "%1g"),
    ])
    func percentDecode(text: String, plusAsSpace: Bool, expected: String) {
        #expect(FormCoding.percentDecode(Substring(text), plusAsSpace: plusAsSpace) == expected)
    }

    @Test(arguments: [
        ("", ""),
        ("abcXYZ019", "abcXYZ019"),
        ("-._~", "-._~"),
        (" ", "%20"),
        ("+", "%2B"),
        ("a b&c=d", "a%20b%26c%3Dd"),
        ("/?#[]@", "%2F%3F%23%5B%5D%40"),
        ("!$'()*,;", "%21%24%27%28%29%2A%2C%3B"),
        ("%", "%25"),
        ("é", "%C3%A9"),
        ("€", "%E2%82%AC"),
        ("😀", "%F0%9F%98%80"),
        ("\u{0}\n\u{7F}", "%00%0A%7F"),
    ])
    func percentEncode(text: String, expected: String) {
        #expect(FormCoding.percentEncode(text) == expected)
    }

    /// Every byte outside the unreserved set is escaped, and every encoding decodes back.
    @Test func percentEncodeCoversAllBytes() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for b in UInt8(0)...0x7F {
            let s = String(Unicode.Scalar(b))
            let encoded = FormCoding.percentEncode(s)
            #expect(encoded.count == (unreserved.contains(b) ? 1 : 3), "byte \(b)")
            #expect(FormCoding.percentDecode(Substring(encoded)) == s)
        }
    }

    @Test(arguments: ["hello world", "a+b=c&d", "100%", "été 😀", "key=value; x", ""])
    func encodeDecodeRoundTrip(text: String) {
        let encoded = FormCoding.percentEncode(text)
        #expect(FormCoding.percentDecode(Substring(encoded)) == text)
        #expect(FormCoding.percentDecode(Substring(encoded), plusAsSpace: false) == text)
        let query = "k=\(encoded)"
        #expect(FormCoding.decode(query).first?.value == text)
    }
}
