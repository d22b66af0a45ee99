/// The random part of a one-time link (`/ack/{token}`, SPEC §10): 32 random
/// bytes in base64url (256 bits; the spec asks for at least 128), stored as
/// its SHA-256 only, so a leaked database yields no usable link. Unsalted
/// SHA-256 suffices for the same reason as for bearer tokens: the input is
/// random, there is nothing to guess.
public enum LinkToken {
    static let encodedLength = 43

    public static func generate() -> (token: String, hash: [UInt8]) {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        return (token, SHA256.hash(token))
    }

    /// The hash to look a presented token up by, or nil when it cannot be
    /// one of ours (wrong length or alphabet): junk never reaches the
    /// database.
    public static func hash(_ token: String) -> [UInt8]? {
        guard token.utf8.count == encodedLength, token.utf8.allSatisfy({ b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F
        }) else { return nil }
        return SHA256.hash(token)
    }
}
