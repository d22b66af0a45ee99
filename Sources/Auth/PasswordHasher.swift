import Crypto

/// Password hashing with scrypt (memory-hard, so GPU/ASIC guessing of a
/// leaked database is expensive), stored in a self-describing PHC-style
/// string so the cost can be raised later without breaking old rows:
/// `$scrypt$ln=15,r=8,p=1$<salt>$<hash>`, salt and hash in standard base64
/// without padding.
public enum PasswordHasher {
    /// log2(N). N=2^15, r=8 uses 32 MiB and ≈ 0.1 s here idle, 0.17 s under
    /// load (docs/security.md): slow for an attacker, fine for one login.
    public static let logN = 15
    public static let r = 8
    public static let p = 1
    public static let saltLength = 16
    public static let keyLength = 32

    // Upper bounds on parameters read back from a stored string. A tampered
    // or corrupt row must not make one login allocate gigabytes or run for
    // minutes (DoS); these are far above anything we would choose.
    static let maxLogN = 20
    static let maxR = 32
    static let maxP = 16
    /// Also cap the memory actually needed (128·r·N): ln=20 with r=32 passes
    /// the individual bounds but would need 4 GiB.
    static let maxMemory: UInt64 = 1 << 30

    public static func hash(_ password: String) throws -> String {
        let salt = SecureRandom.bytes(saltLength)
        let key = try Scrypt.derive(password: Array(password.utf8), salt: salt,
                                    n: 1 << UInt64(logN), r: UInt64(r), p: UInt64(p), length: keyLength)
        return "$scrypt$ln=\(logN),r=\(r),p=\(p)$\(Base64.encode(salt, padded: false))$\(Base64.encode(key, padded: false))"
    }

    /// Verifies in constant time (comparison of the derived keys); parses the
    /// parameters from the string, so rows hashed with older parameters still
    /// verify after the defaults are raised. False on malformed strings and on
    /// absurd parameters (ln > 20, r > 32, p > 16, or more than 1 GiB).
    public static func verify(_ password: String, against encoded: String) -> Bool {
        guard let parsed = parse(encoded) else { return false }
        guard let key = try? Scrypt.derive(password: Array(password.utf8), salt: parsed.salt,
                                           n: 1 << UInt64(parsed.logN), r: UInt64(parsed.r), p: UInt64(parsed.p),
                                           length: parsed.hash.count)
        else { return false }
        return constantTimeEquals(key, parsed.hash)
    }

    /// Whether a stored hash uses weaker parameters than today's defaults, so
    /// a caller can re-hash it after a successful login.
    public static func needsRehash(_ encoded: String) -> Bool {
        guard let parsed = parse(encoded) else { return true }
        return parsed.logN < logN || parsed.r < r || parsed.p < p
            || parsed.salt.count < saltLength || parsed.hash.count < keyLength
    }

    /// Policy: at least 8 characters, at most 1024 bytes (UTF-8); a human
    /// message, or nil if acceptable. Characters are counted as users see
    /// them (grapheme clusters); the byte cap bounds work and storage.
    public static func policyViolation(_ password: String) -> String? {
        if password.count < 8 { return "Password must be at least 8 characters long." }
        if password.utf8.count > 1024 { return "Password must be at most 1024 bytes long." }
        return nil
    }

    /// A hash of a random password, to verify against when the user doesn't
    /// exist, so unknown and known emails take the same time (no account
    /// enumeration by timing). Computed on first use with the current
    /// parameters, so it tracks them if they change; touch it at startup to
    /// keep that first ≈ 0.1 s off the first failed login. The fallback only
    /// applies if OpenSSL fails, and is well-formed so the timing still holds.
    public static let dummyHash: String =
        (try? hash(Base64URL.encode(SecureRandom.bytes(32))))
            ?? "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

    struct Parsed {
        var logN: Int, r: Int, p: Int
        var salt: [UInt8], hash: [UInt8]
    }

    /// Strict parser: exactly `$scrypt$ln=…,r=…,p=…$salt$hash`, parameters
    /// in that order, plain decimal numbers, all within bounds.
    static func parse(_ encoded: String) -> Parsed? {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        let params = parts[2].split(separator: ",", omittingEmptySubsequences: false)
        guard params.count == 3,
              let logN = number(params[0], key: "ln"), (1...maxLogN).contains(logN),
              let r = number(params[1], key: "r"), (1...maxR).contains(r),
              let p = number(params[2], key: "p"), (1...maxP).contains(p),
              128 * UInt64(r) * (UInt64(1) << UInt64(logN)) <= maxMemory
        else { return nil }
        guard let salt = Base64.decode(String(parts[3])), (8...64).contains(salt.count),
              let hash = Base64.decode(String(parts[4])), (16...64).contains(hash.count)
        else { return nil }
        return Parsed(logN: logN, r: r, p: p, salt: salt, hash: hash)
    }

    private static func number(_ field: Substring, key: String) -> Int? {
        guard field.hasPrefix(key + "=") else { return nil }
        let digits = field.dropFirst(key.count + 1)
        // At most 3 digits and only 0-9: no signs, spaces or huge values.
        guard (1...3).contains(digits.utf8.count),
              digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(digits)
    }
}
