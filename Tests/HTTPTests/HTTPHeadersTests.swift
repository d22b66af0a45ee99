import HTTP
import Testing

@Suite struct HTTPHeadersTests {
    /// ASCII-only case folding, byte by byte: the reference.
    static func reference(_ a: String, _ b: String) -> Bool {
        func fold(_ s: String) -> [UInt8] { s.utf8.map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 } }
        return fold(a) == fold(b)
    }

    @Test(arguments: [
        ("Authorization", "authorization", true), ("Content-Length", "CONTENT-LENGTH", true),
        ("X-A", "X-B", false), ("Host", "Hos", false), ("", "", true), ("-", "\r", false),
        ("[", "{", false), ("@", "`", false), ("É", "é", false), ("x-ÿ", "X-ÿ", true),
    ])
    func namesCompareWithoutCase(a: String, b: String, equal: Bool) {
        #expect(HTTPHeaders.equalNames(a, b) == equal)
        #expect(HTTPHeaders.equalNames(b, a) == equal)
    }

    @Test func agreesWithTheReferenceOnRandomNames() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("aAbBzZ-_09@[`{~".utf8)
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...6, using: &rng)
            let a = String(decoding: (0..<n).map { _ in alphabet.randomElement(using: &rng)! }, as: UTF8.self)
            // Half the time a case-flipped copy of `a`, else random.
            let b = Bool.random(using: &rng)
                ? String(decoding: a.utf8.map { c in Bool.random(using: &rng) && (65...90).contains(c) ? c + 32 : c }, as: UTF8.self)
                : String(decoding: (0..<n).map { _ in alphabet.randomElement(using: &rng)! }, as: UTF8.self)
            #expect(HTTPHeaders.equalNames(a, b) == Self.reference(a, b), "\(a) \(b)")
        }
        var headers = HTTPHeaders()
        headers.add("authorization", "Bearer x")
        #expect(headers["Authorization"] == "Bearer x" && headers["AUTHORIZATION"] == "Bearer x" && headers["Authorizatio"] == nil)
    }
}
