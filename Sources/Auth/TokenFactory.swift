import Crypto

/// Makes bearer tokens and computes the SHA-256 that the database stores
/// in their place (a leaked database then yields no usable token; SHA-256
/// without salt suffices because tokens carry 256 random bits).
public enum TokenFactory {
    /// Random bytes per token: 256 bits (SPEC §3: at least 32).
    public static let randomByteCount = 32
    /// base64url without padding of 32 bytes.
    public static let encodedLength = 43
    /// Prefix (4) + encoded random part (43).
    public static let tokenLength = 4 + encodedLength

    /// prefix + base64url(32 random bytes) → (token, SHA-256 of the whole
    /// token string's UTF-8). Hashing the prefix too keeps the stored hash
    /// bound to the kind.
    public static func generate(_ kind: TokenKind) -> (token: String, hash: [UInt8]) {
        let token = kind.rawValue + Base64URL.encode(SecureRandom.bytes(randomByteCount))
        return (token, SHA256.hash(token))
    }

    /// SHA-256 of a presented token (what is stored and looked up), or nil
    /// for tokens that are not one of `kinds`' prefixes followed by exactly 43
    /// base64url characters. Rejecting junk here keeps it away from the
    /// database and makes wrong-kind tokens (a refresh token sent as a bearer
    /// token, say) fail the same way as garbage.
    public static func hashPresented(_ token: String, expecting kinds: [TokenKind]) -> [UInt8]? {
        // Runs on every API request: one pass over the bytes, no allocation
        // (String.UTF8View indexing and Set lookups cost more than the hash;
        // `kinds` is an array for that reason: one to three cases compared
        // beat hashing one).
        let valid = token.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.count == tokenLength,
                  bytes[0] == UInt8(ascii: "p"), bytes[1] == UInt8(ascii: "m"), bytes[3] == UInt8(ascii: "_")
            else { return false }
            let kind: TokenKind
            switch bytes[2] {
            case UInt8(ascii: "k"): kind = .apiToken
            case UInt8(ascii: "a"): kind = .oauthAccess
            case UInt8(ascii: "r"): kind = .oauthRefresh
            case UInt8(ascii: "g"): kind = .agent
            default: return false
            }
            guard kinds.contains(kind) else { return false }
            for i in 4..<tokenLength where !isBase64URL(bytes[i]) { return false }
            return true
        } ?? slowCheck(token, kinds)   // bridged or non-contiguous strings only
        return valid ? SHA256.hash(token) : nil
    }

    private static func slowCheck(_ token: String, _ kinds: [TokenKind]) -> Bool {
        let utf8 = token.utf8
        guard utf8.count == tokenLength, let kind = TokenKind.of(token), kinds.contains(kind) else { return false }
        return utf8.dropFirst(4).allSatisfy(isBase64URL)
    }

    @inline(__always)
    private static func isBase64URL(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
