import Core
/// HTML escaping for every value a page shows. One helper, used for text and
/// for attribute values (always double-quoted in our templates), so there is
/// no second, subtly different escaper to forget.
enum HTML {
    /// Escapes `& < > " '`: enough for element text and quoted attributes.
    static func escape(_ text: String) -> String { Escaping.html(text) }
}

/// Shorthand for templates: `\(h(value))`.
func h(_ text: String) -> String { HTML.escape(text) }
