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
        // Most text has nothing to trim: two byte looks settle it, without
        // walking Characters (grapheme breaking) at all. Every Character
        // dropped is ASCII white space, so it starts and ends with such a
        // byte; a text whose first and last bytes are not has nothing to
        // drop at either end.
        let untouched = utf8.withContiguousStorageIfAvailable { bytes in
            bytes.isEmpty || (!Self.mayTrim(bytes[0]) && !Self.mayTrim(bytes[bytes.count - 1]))
        }
        if untouched == true { return String(self) }
        var s = self[...]
        while let f = s.first, drop(f) { s = s.dropFirst() }
        while let l = s.last, drop(l) { s = s.dropLast() }
        return String(s)
    }

    private static func mayTrim(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
}
