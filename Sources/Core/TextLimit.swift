/// Length limits for text, in characters and in UTF-8 bytes: checking
/// stored text against them, and cutting outgoing text down to them.
///
/// Characters (grapheme clusters) are what a person counts, but one cluster
/// can hold any number of combining scalars: a "one character" name of
/// 200 KB would pass a character limit alone and then be served to anyone
/// on status pages and badges. So every stored text field is bounded in
/// bytes too, by default 4 bytes per allowed character (the most one
/// scalar takes in UTF-8), which no real name in any script comes near.
public enum TextLimit {
    /// True when `s` has at most `characters` characters and at most
    /// `bytes` UTF-8 bytes (default `4 × characters`). Bytes are checked
    /// first: that is O(1) for native strings and bounds the character count's cost.
    public static func fits(_ s: String, characters: Int, bytes: Int? = nil) -> Bool {
        s.utf8.count <= (bytes ?? characters * 4) && s.count <= characters
    }

    /// The limit as error messages and docs write it: "200 characters (800 bytes)".
    public static func describe(characters: Int, bytes: Int? = nil) -> String {
        "\(characters) characters (\(bytes ?? characters * 4) bytes)"
    }

    /// What a limit counts. Services say "characters" and mean any of
    /// these, so each caller names the one its service counts in.
    public enum Unit: Sendable {
        case utf8Bytes
        case utf16Units
        case unicodeScalars
        case characters

        public func size(_ s: String) -> Int {
            switch self {
            case .utf8Bytes: s.utf8.count
            case .utf16Units: s.utf16.count
            case .unicodeScalars: s.unicodeScalars.count
            case .characters: s.count
            }
        }
    }

    /// Marks a cut.
    public static let ellipsis = "…"

    /// `text`, each character written as `render` makes it (an escape, say),
    /// cut to at most `limit` units of `unit`: whole characters only, so
    /// never half an emoji, a flag, a letter with its accents or (cutting
    /// after `render`) half an `&amp;`; `…` at the end when something was
    /// cut. The result never exceeds the limit: below the ellipsis's own
    /// size, a cut text is what fits of it without one.
    public static func cut(_ text: String, to limit: Int, in unit: Unit, render: ((Character) -> String)? = nil) -> String {
        guard let render else {
            // Nothing to render: measure once (O(1) in UTF-8 for native strings).
            return unit.size(text) <= limit ? text : cutting(text, to: limit, in: unit) { String($0) }
        }
        return cutting(text, to: limit, in: unit, render: render)
    }

    private static func cutting(_ text: String, to limit: Int, in unit: Unit, render: (Character) -> String) -> String {
        let mark = unit.size(ellipsis)
        let budget = limit >= mark ? limit - mark : limit
        var out = ""
        var used = 0
        // The prefix that leaves room for the ellipsis, kept while the rest
        // is still measured: the whole text may fit after all.
        var kept: String?
        for ch in text {
            let piece = render(ch)
            let n = unit.size(piece)
            if kept == nil, used + n > budget { kept = out }
            used += n
            if used > limit {
                var cut = kept ?? ""
                // A cut right after a line break or space reads as an
                // unfinished line; the ellipsis goes after the last word.
                while cut.last?.isWhitespace == true { cut.removeLast() }
                return limit >= mark ? cut + ellipsis : cut
            }
            out += piece
        }
        return out
    }
}
