/// `Authorization: Bearer <token>` (RFC 6750 §2.1) read in one pass over
/// the bytes: the scheme is the text before the first space, compared
/// without regard to case (RFC 9110 §11.1); the token is the rest without
/// the spaces and tabs around it. Every authenticated request reads this
/// header, some twice (the agent-token check, then the token itself), and
/// the Character-level split, lowercasing and trimming it replaced cost
/// more than the token's hash.
public enum BearerCredentials {
    /// The token, or nil when the scheme is not Bearer or the token is empty.
    public static func token(_ authorization: String) -> String? {
        guard let range = tokenRange(authorization) else { return nil }
        return String(authorization[range])
    }

    /// True when the header's scheme is Bearer (whatever follows).
    public static func isBearer(_ authorization: String) -> Bool {
        schemeEnd(authorization) != nil
    }

    /// Where the scheme ends (the first space after it), if it is Bearer.
    private static func schemeEnd(_ s: String) -> String.Index? {
        let utf8 = s.utf8
        var i = utf8.startIndex
        while i < utf8.endIndex, utf8[i] == space { i = utf8.index(after: i) }
        for expected in bearer {
            // ASCII letters only: OR-ing 0x20 folds A–Z onto a–z.
            guard i < utf8.endIndex, utf8[i] | 0x20 == expected else { return nil }
            i = utf8.index(after: i)
        }
        guard i < utf8.endIndex, utf8[i] == space else { return nil }
        return i
    }

    private static func tokenRange(_ s: String) -> Range<String.Index>? {
        guard var start = schemeEnd(s) else { return nil }
        let utf8 = s.utf8
        var end = utf8.endIndex
        while start < end, utf8[start] == space || utf8[start] == tab { start = utf8.index(after: start) }
        while end > start {
            let last = utf8.index(before: end)
            guard utf8[last] == space || utf8[last] == tab else { break }
            end = last
        }
        return start < end ? start..<end : nil
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let bearer = Array("bearer".utf8)
}
