/// The two ways the hub trims text, named for what they are for, so every
/// parser and form uses one of them (there were six trimmers with four rules).
extension StringProtocol {
    /// Without leading and trailing spaces and tabs: HTTP's optional white
    /// space (RFC 9110 §5.6.3), for header values, list elements and tokens.
    public func trimmingSpaces() -> String {
        trimming { $0 == " " || $0 == "\t" }
    }

    /// Without leading and trailing ASCII white space (space, tab, CR, LF):
    /// for text a person typed or pasted (names, addresses, URLs, targets).
    public func trimmingWhitespace() -> String {
        trimming { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
    }

    private func trimming(_ drop: (Character) -> Bool) -> String {
        var s = self[...]
        while let f = s.first, drop(f) { s = s.dropFirst() }
        while let l = s.last, drop(l) { s = s.dropLast() }
        return String(s)
    }
}
