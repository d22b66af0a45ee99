import Core
import Testing

/// The byte-level shortcut of `trimmingSpaces` / `trimmingWhitespace` gives
/// what walking Characters gives, on edges that look alike in bytes.
@Suite struct TrimmingTests {
    static func reference(_ s: String, _ drop: (Character) -> Bool) -> String {
        var t = s[...]
        while let f = t.first, drop(f) { t = t.dropFirst() }
        while let l = t.last, drop(l) { t = t.dropLast() }
        return String(t)
    }

    @Test(arguments: [
        "", " ", "a", " a ", "\ta\t", "a b", "\r\na\r\n", " \u{301}a", "a \u{301}", "\u{301} ", "é", " é ",
        "\n", "\r", "x\r", "☃", " ☃\t", "a\u{0}", "\u{A0}a\u{A0}",
    ])
    func sameAsCharacterWalk(text: String) {
        #expect(text.trimmingSpaces() == Self.reference(text) { $0 == " " || $0 == "\t" })
        #expect(text.trimmingWhitespace() == Self.reference(text) {
            $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n"
        })
        let sub = text[...]
        #expect(sub.trimmingSpaces() == text.trimmingSpaces())
    }
}
