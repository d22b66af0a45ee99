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
        var header = authorization
        return header.withUTF8 { bytes -> String? in
            guard let range = tokenRange(bytes) else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
    }

    /// True when the header's scheme is Bearer (whatever follows).
    public static func isBearer(_ authorization: String) -> Bool {
        var header = authorization
        return header.withUTF8 { schemeEnd($0) != nil }
    }

    // Offsets into the header's bytes: walking `String.Index`es cost about
    // 650 instructions per request, a third of the token's hash.

    /// Where the scheme ends (the first space after it), if it is Bearer.
    private static func schemeEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        while i < bytes.count, bytes[i] == space { i += 1 }
        let bearer: StaticString = "bearer"
        for k in 0..<bearer.utf8CodeUnitCount {
            // ASCII letters only: OR-ing 0x20 folds A–Z onto a–z.
            guard i < bytes.count, bytes[i] | 0x20 == bearer.utf8Start[k] else { return nil }
            i += 1
        }
        guard i < bytes.count, bytes[i] == space else { return nil }
        return i
    }

    private static func tokenRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard var start = schemeEnd(bytes) else { return nil }
        var end = bytes.count
        while start < end, bytes[start] == space || bytes[start] == tab { start += 1 }
        while end > start, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
        return start < end ? start..<end : nil
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
}
