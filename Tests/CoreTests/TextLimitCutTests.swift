import Testing
import Core

/// `TextLimit.cut`: the one way outgoing text is cut to a service's limit,
/// in the unit that service counts, never inside a grapheme cluster.
@Suite struct TextLimitCutTests {
    /// 👩‍👩‍👧: one character of five scalars (three emoji joined by two
    /// zero-width joiners), 8 UTF-16 units, 18 UTF-8 bytes.
    static let family = "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}"
    /// "café" with the accent as a combining mark: 4 characters, 5 scalars.
    static let cafe = "cafe\u{301}"
    /// Z with four combining marks: one character of five scalars.
    static let zalgo = "Z\u{351}\u{36B}\u{34B}\u{33A}"
    /// 8 characters and UTF-16 units, 24 UTF-8 bytes.
    static let cjk = "日本語のテキスト"

    static let cases: [(String, Int, TextLimit.Unit, String)] = [
        // Exactly at the limit: whole; one under: cut, with the ellipsis inside the limit.
        ("abcdef", 6, .utf8Bytes, "abcdef"), ("abcdef", 5, .utf8Bytes, "ab…"),
        ("abcdef", 6, .utf16Units, "abcdef"), ("abcdef", 5, .utf16Units, "abcd…"),
        ("abcdef", 6, .unicodeScalars, "abcdef"), ("abcdef", 5, .unicodeScalars, "abcd…"),
        ("abcdef", 6, .characters, "abcdef"), ("abcdef", 5, .characters, "abcd…"),
        // An emoji ZWJ sequence stays whole or goes.
        ("ab" + family, 10, .utf16Units, "ab" + family), ("ab" + family, 9, .utf16Units, "ab…"),
        ("ab" + family, 7, .unicodeScalars, "ab" + family), ("ab" + family, 6, .unicodeScalars, "ab…"),
        ("ab" + family, 20, .utf8Bytes, "ab" + family), ("ab" + family, 19, .utf8Bytes, "ab…"),
        (family + family, 2, .characters, family + family), (family + family, 1, .characters, "…"),
        // A combining mark is never separated from its letter ("cafe…" would drop the accent).
        (cafe, 4, .characters, cafe), (cafe, 3, .characters, "ca…"),
        (cafe, 5, .unicodeScalars, cafe), (cafe, 4, .unicodeScalars, "caf…"),
        (cafe, 6, .utf8Bytes, cafe), (cafe, 5, .utf8Bytes, "ca…"),
        ("x" + zalgo, 6, .unicodeScalars, "x" + zalgo), ("x" + zalgo, 5, .unicodeScalars, "x…"),
        // CJK: three bytes a character in UTF-8, one UTF-16 unit.
        (cjk, 24, .utf8Bytes, cjk), (cjk, 23, .utf8Bytes, "日本語のテキ…"),
        (cjk, 8, .utf16Units, cjk), (cjk, 7, .utf16Units, "日本語のテキ…"),
        (cjk, 8, .characters, cjk), (cjk, 7, .characters, "日本語のテキ…"),
        // A flag is two scalars, four UTF-16 units.
        ("a🇩🇪b", 3, .unicodeScalars, "a…"), ("a🇩🇪b", 6, .utf16Units, "a🇩🇪b"), ("a🇩🇪b", 5, .utf16Units, "a…"),
        // The ellipsis follows the last word, not a space or line break.
        ("one two three", 9, .characters, "one two…"), ("down\nsince 10:00", 6, .characters, "down…"),
        // Below the ellipsis's own size: what fits, without one.
        ("abc", 2, .utf8Bytes, "ab"), ("é", 1, .utf8Bytes, ""), ("abc", 0, .utf16Units, ""), ("", 0, .characters, ""),
    ]

    @Test(arguments: cases)
    func cutsToTheLimit(text: String, limit: Int, unit: TextLimit.Unit, expected: String) {
        let cut = TextLimit.cut(text, to: limit, in: unit)
        #expect(cut == expected)
        #expect(unit.size(cut) <= limit)
    }

    /// Each character measured as rendered: an escape is kept whole or left out.
    @Test func rendersBeforeMeasuring() {
        let escape: (Character) -> String = { $0 == "&" ? "&amp;" : String($0) }
        #expect(TextLimit.cut("a&b", to: 7, in: .utf16Units, render: escape) == "a&amp;b")
        #expect(TextLimit.cut("a&b", to: 6, in: .utf16Units, render: escape) == "a…")
        #expect(TextLimit.cut("&&&", to: 11, in: .utf8Bytes, render: escape) == "&amp;…")
        #expect(TextLimit.cut("&&&", to: 13, in: .utf8Bytes, render: escape) == "&amp;&amp;…")
    }

    /// Every limit, every unit: the cut fits, and what is kept is whole
    /// characters from the start of the text.
    @Test func neverSplitsACharacterAndNeverOverflows() {
        let texts = ["", "plain ascii text", Self.family + " " + Self.family + "x", Self.cafe + Self.zalgo + Self.cafe,
                     Self.cjk + "🇩🇪🇫🇷", "line one\nline two \u{1F534} done"]
        for text in texts {
            for unit in [TextLimit.Unit.utf8Bytes, .utf16Units, .unicodeScalars, .characters] {
                for limit in 0...(unit.size(text) + 2) {
                    let cut = TextLimit.cut(text, to: limit, in: unit)
                    #expect(unit.size(cut) <= limit, "\(unit) \(limit): \(cut)")
                    let kept = cut == text || !cut.hasSuffix(TextLimit.ellipsis) ? cut : String(cut.dropLast())
                    #expect(Array(text).starts(with: Array(kept)), "\(unit) \(limit): \(cut)")
                    #expect((cut == text) == (unit.size(text) <= limit), "\(unit) \(limit): \(cut)")
                }
            }
        }
    }
}
