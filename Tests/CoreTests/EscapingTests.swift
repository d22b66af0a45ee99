import Core
import Testing

/// `Escaping.html`: the byte scan that skips text without specials must
/// give what the scalar loop gives, for ASCII and for multi-byte text.
@Suite struct EscapingTests {
    @Test(arguments: [
        ("", ""), ("plain text", "plain text"), ("a & b", "a &amp; b"), ("<b>", "&lt;b&gt;"),
        ("\"q\" 'q'", "&quot;q&quot; &#39;q&#39;"), ("é<ü>€", "é&lt;ü&gt;€"), ("日本語", "日本語"),
        ("🙂&🙂", "🙂&amp;🙂"), ("&amp;", "&amp;amp;"),
    ])
    func html(_ text: String, _ expected: String) {
        #expect(Escaping.html(text) == expected)
        #expect(Escaping.html(Substring("x" + text + "y").dropFirst().dropLast()) == expected, "a Substring too")
    }

    static let entities: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"]

    /// Against a table applied scalar by scalar, on random mixes of ASCII,
    /// multi-byte characters, combining marks and the five specials.
    @Test func agreesWithTheScalarLoopOnMixedText() {
        let pieces = ["a", "é", "€", "🙂", "&", "<", ">", "\"", "'", " ", "\u{301}", "日"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let reference = text.unicodeScalars.map { Self.entities[$0] ?? String($0) }.joined()
            #expect(Escaping.html(text) == reference, "\(text)")
        }
    }
}
