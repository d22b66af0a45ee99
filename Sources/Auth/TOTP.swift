import Crypto

/// Time-based one-time passwords (RFC 6238): HMAC-SHA-1, 6 digits, 30 s
/// steps by default — the only combination all authenticator apps support.
/// `digits` and `period` are parameters so the RFC's 8-digit vectors can be
/// tested exactly.
public struct TOTP: Sendable {
    public let secret: [UInt8]
    public let digits: Int
    public let period: Int64

    public init(secret: [UInt8], digits: Int = 6, period: Int64 = 30) {
        precondition((6...8).contains(digits), "TOTP digits must be 6...8")
        precondition(period > 0, "TOTP period must be positive")
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    /// 20 random bytes: the HMAC-SHA-1 output size, as RFC 4226 §4 recommends
    /// (160 bits; 32 Base32 characters).
    public static func generateSecret() -> [UInt8] {
        SecureRandom.bytes(20)
    }

    /// The time step containing `unixSeconds` (floor division, also before 1970).
    public func step(at unixSeconds: Int64) -> Int64 {
        let q = unixSeconds / period
        return (unixSeconds % period < 0) ? q - 1 : q
    }

    public func code(at unixSeconds: Int64) -> String {
        code(forStep: step(at: unixSeconds))
    }

    /// HOTP (RFC 4226 §5.3) of the step counter.
    public func code(forStep step: Int64) -> String {
        let counter = UInt64(bitPattern: step)
        var message = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { message[i] = UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * i)) }
        let mac = HMAC.sha1(key: secret, data: message)
        let offset = Int(mac[19] & 0x0F)
        let binary = UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16
            | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// Accepts the current step ±1 (RFC 6238 §5.2: clock drift and the time a
    /// user takes to type). Returns the matched step so callers can refuse a
    /// code for a step already used (replay), or nil. Spaces in the input are
    /// ignored ("123 456" as some apps display it). All three candidates are
    /// compared, in constant time, so timing reveals neither the code nor
    /// which step matched.
    public func verify(_ code: String, at unixSeconds: Int64) -> Int64? {
        let typed = code.utf8.filter { $0 != UInt8(ascii: " ") }
        guard typed.count == digits,
              typed.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let current = step(at: unixSeconds)
        var matched: Int64?
        for candidate in (current - 1)...(current + 1) where candidate >= 0 {
            // The latest matching step wins: recording it as used blocks the
            // most future replays.
            if constantTimeEquals(Array(self.code(forStep: candidate).utf8), typed) {
                matched = candidate
            }
        }
        return matched
    }

    /// `otpauth://totp/Issuer:account?secret=BASE32&issuer=Issuer&algorithm=SHA1&digits=6&period=30`
    /// (Google Authenticator's Key URI Format). Issuer and account are
    /// percent-encoded as RFC 3986 requires for any character outside the
    /// unreserved set (spaces as %20, never '+'; a ':' in either becomes %3A,
    /// so the label's own separator stays unambiguous).
    public func otpauthURI(issuer: String, account: String) -> String {
        let i = Self.percentEncode(issuer)
        return "otpauth://totp/\(i):\(Self.percentEncode(account))?secret=\(Base32.encode(secret))"
            + "&issuer=\(i)&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }

    static func percentEncode(_ s: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(b)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
