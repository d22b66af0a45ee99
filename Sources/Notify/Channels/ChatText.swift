import Core
/// Text shaping shared by the chat channels (pure): each service's markup
/// escape, neutralised group mentions, and cutting to a service's limit.
/// Sources for every rule are in docs/notifications.md.
enum ChatText {
    /// The unit a service's length limit is counted in.
    enum Unit {
        /// For "characters": no service documents its unit, and a text's
        /// UTF-16 length is never below its count of code points or of
        /// characters, so a text that fits in UTF-16 fits whatever the
        /// service counts.
        case utf16
        /// ntfy counts bytes.
        case utf8
    }

    static let ellipsis = "…"

    /// `text`, each character written as `render` makes it, cut to at most
    /// `limit` units: whole characters only (never half an emoji or half an
    /// `&amp;`), and `…` at the end when something was cut.
    static func fit(_ text: String, limit: Int, unit: Unit = .utf16, render: (Character) -> String = { String($0) }) -> String {
        func size(_ s: String) -> Int { unit == .utf16 ? s.utf16.count : s.utf8.count }
        var out = ""
        var used = 0
        // The prefix that leaves room for the ellipsis, kept while the
        // whole text is still being measured.
        var cut: String?
        let budget = limit - size(ellipsis)
        for ch in text {
            let piece = render(ch)
            let n = size(piece)
            if cut == nil, used + n > budget { cut = out }
            used += n
            if used > limit {
                var kept = cut ?? ""
                // A cut right after a line break or space reads as an
                // unfinished line; the ellipsis goes after the last word.
                while kept.last?.isWhitespace == true { kept.removeLast() }
                return kept + ellipsis
            }
            out += piece
        }
        return out
    }

    /// Slack's (and Mattermost's Slack-compatible) control characters:
    /// `&`, `<` and `>` become `&amp;`, `&lt;` and `&gt;`, so no `<!channel>`,
    /// `<@U…>` or `<url|text>` link can come from a monitor name or cause.
    /// Nothing else is entity-encoded: Slack decodes only these three.
    static func escapingControlCharacters(_ ch: Character) -> String {
        Escaping.replacing(String(ch)) { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            default: nil
            }
        }
    }

    /// The group mentions that notify everyone in a channel.
    static let groupMentions = ["channel", "here", "everyone", "all"]

    /// `@channel`, `@here`, `@everyone` and `@all` (any case) with a zero
    /// width joiner after the `@`: it reads the same, but the mention no
    /// longer matches, so a monitor named `@channel` pings nobody. A joiner
    /// and not backticks: a name holding backticks of its own could close
    /// a code span early and set the mention free again.
    static func neutralisingGroupMentions(_ text: String) -> String {
        guard text.contains("@") else { return text }
        var out = ""
        var rest = Substring(text)
        while let at = rest.firstIndex(of: "@") {
            out += rest[...at]
            rest = rest[rest.index(after: at)...]
            let next = rest.prefix(8).lowercased()
            if groupMentions.contains(where: { next.hasPrefix($0) }) { out += "\u{200D}" }
        }
        return out + rest
    }
}
