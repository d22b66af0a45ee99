import Core
/// Text shaping shared by the chat channels (pure): each service's markup
/// escape, neutralised group mentions, and the unit their limits are cut in.
/// Sources for every rule are in docs/notifications.md.
enum ChatText {
    /// The unit the chat services' "characters" are cut in
    /// (`TextLimit.cut`): no service documents its unit, and a text's UTF-16
    /// length is never below its count of code points or of characters, so
    /// a text that fits in UTF-16 fits whatever the service counts.
    static let unit = TextLimit.Unit.utf16Units

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

    /// `text` and, on a line of its own after it, `link` (the hub's page of
    /// the alert, SPEC §10's tap-through link), cut so the whole fits in
    /// `limit` units: only the text is ever cut, never the link the person
    /// on call taps. No link: the text alone.
    static func withLink(_ text: String, _ link: String?, limit: Int, in unit: TextLimit.Unit,
                         render: ((Character) -> String)? = nil) -> String {
        guard let link else { return TextLimit.cut(text, to: limit, in: unit, render: render) }
        let tail = "\n" + (render.map { r in link.map(r).joined() } ?? link)
        return TextLimit.cut(text, to: max(0, limit - unit.size(tail)), in: unit, render: render) + tail
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
