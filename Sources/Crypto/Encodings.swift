// Text encodings of bytes, written by hand: they run on hot paths (tokens on
// every request) and OpenSSL's BIO base64 is slow, allocates, and accepts
// whitespace and junk. Decoders are strict: any character outside the
// alphabet, misplaced padding, an impossible length, or non-zero unused
// trailing bits give nil, so every byte string has exactly one accepted
// encoding (no malleable tokens, no two spellings of one salt).
// Base32 is the exception where humans type: see its notes.

private let invalid: UInt8 = 0xFF

private func decodeTable(_ alphabet: [UInt8]) -> [UInt8] {
    var table = [UInt8](repeating: invalid, count: 256)
    for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
    return table
}

private let b64Std = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
private let b64URL = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
private let b64StdTable = decodeTable(b64Std)
private let b64URLTable = decodeTable(b64URL)
private let pad = UInt8(ascii: "=")

/// Runs `body` on the string's UTF-8 bytes without copying for native strings.
@inline(__always)
private func withUTF8Bytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let r = s.utf8.withContiguousStorageIfAvailable(body) { return r }
    return Array(s.utf8).withUnsafeBufferPointer(body)
}

@inline(__always)
private func withByteBuffer<C: Collection<UInt8>, R>(_ c: C, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let r = c.withContiguousStorageIfAvailable(body) { return r }
    return Array(c).withUnsafeBufferPointer(body)
}

private func base64Encode<C: Collection<UInt8>>(_ bytes: C, alphabet: [UInt8], padded: Bool) -> String {
    withByteBuffer(bytes) { input in
        let n = input.count
        let full = n / 3
        let rest = n % 3
        let outCount = full * 4 + (rest == 0 ? 0 : (padded ? 4 : rest + 1))
        if outCount == 0 { return "" }
        return alphabet.withUnsafeBufferPointer { a in
            String(unsafeUninitializedCapacity: outCount) { out in
                var i = 0, o = 0
                for _ in 0..<full {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[o] = a[Int(v >> 18)]
                    out[o + 1] = a[Int(v >> 12 & 63)]
                    out[o + 2] = a[Int(v >> 6 & 63)]
                    out[o + 3] = a[Int(v & 63)]
                    i += 3; o += 4
                }
                if rest == 1 {
                    let v = UInt32(input[i]) << 16
                    out[o] = a[Int(v >> 18)]
                    out[o + 1] = a[Int(v >> 12 & 63)]
                    o += 2
                    if padded { out[o] = pad; out[o + 1] = pad; o += 2 }
                } else if rest == 2 {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                    out[o] = a[Int(v >> 18)]
                    out[o + 1] = a[Int(v >> 12 & 63)]
                    out[o + 2] = a[Int(v >> 6 & 63)]
                    o += 3
                    if padded { out[o] = pad; o += 1 }
                }
                return o
            }
        }
    }
}

/// Decodes unpadded base64 text of `n` characters (`n % 4 != 1`).
private func base64Decode(_ text: UnsafeBufferPointer<UInt8>, count n: Int, table: [UInt8]) -> [UInt8]? {
    if n % 4 == 1 { return nil }
    let full = n / 4
    let rest = n % 4
    let outCount = full * 3 + (rest == 0 ? 0 : rest - 1)
    var ok = true
    let result = table.withUnsafeBufferPointer { t in
        [UInt8](unsafeUninitializedCapacity: outCount) { out, count in
            var i = 0, o = 0
            for _ in 0..<full {
                let a = t[Int(text[i])], b = t[Int(text[i + 1])], c = t[Int(text[i + 2])], d = t[Int(text[i + 3])]
                // Valid values are < 64; 0xFF in any position sets the high bits.
                if (a | b | c | d) & 0xC0 != 0 { ok = false; break }
                let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                out[o] = UInt8(truncatingIfNeeded: v >> 16)
                out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                out[o + 2] = UInt8(truncatingIfNeeded: v)
                i += 4; o += 3
            }
            if ok && rest == 2 {
                let a = t[Int(text[i])], b = t[Int(text[i + 1])]
                if (a | b) & 0xC0 != 0 || b & 0x0F != 0 { ok = false } else {
                    out[o] = a << 2 | b >> 4
                    o += 1
                }
            } else if ok && rest == 3 {
                let a = t[Int(text[i])], b = t[Int(text[i + 1])], c = t[Int(text[i + 2])]
                if (a | b | c) & 0xC0 != 0 || c & 0x03 != 0 { ok = false } else {
                    out[o] = a << 2 | b >> 4
                    out[o + 1] = b << 4 | c >> 2
                    o += 2
                }
            }
            count = ok ? o : 0
        }
    }
    return ok ? result : nil
}

/// Standard base64 (RFC 4648 §4, `+/`).
public enum Base64 {
    /// Padded by default (RFC 4648 canonical form); `padded: false` gives the
    /// unpadded form used in PHC password-hash strings.
    public static func encode(_ bytes: some Collection<UInt8>, padded: Bool = true) -> String {
        base64Encode(bytes, alphabet: b64Std, padded: padded)
    }

    /// Accepts the padded form and the unpadded form. If padding is present it
    /// must be exactly right (total length a multiple of 4, only at the end).
    public static func decode(_ s: String) -> [UInt8]? {
        withUTF8Bytes(s) { text in
            var n = text.count
            if n > 0 && n % 4 == 0 {
                if text[n - 1] == pad { n -= 1 }
                if text[n - 1] == pad { n -= 1 }
            }
            // A '=' left anywhere else is not in the table and is rejected.
            return base64Decode(text, count: n, table: b64StdTable)
        }
    }
}

/// URL-safe base64 (RFC 4648 §5, `-_`) without padding, as in tokens, PKCE
/// and JWTs (RFC 7515 §2).
public enum Base64URL {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        base64Encode(bytes, alphabet: b64URL, padded: false)
    }

    /// Unpadded only: '=' is rejected like any other character outside the
    /// alphabet, so a token has a single spelling.
    public static func decode(_ s: String) -> [UInt8]? {
        withUTF8Bytes(s) { base64Decode($0, count: $0.count, table: b64URLTable) }
    }
}

private let b32Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
private let b32Table: [UInt8] = {
    var t = decodeTable(b32Alphabet)
    for (i, c) in "abcdefghijklmnopqrstuvwxyz".utf8.enumerated() { t[Int(c)] = UInt8(i) }
    return t
}()

/// Base32 (RFC 4648 §6), the encoding of TOTP secrets in otpauth URIs and in
/// the "enter this key manually" text.
public enum Base32 {
    /// Uppercase, unpadded (what authenticator apps expect in `secret=`).
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        withByteBuffer(bytes) { input in
            let outCount = (input.count * 8 + 4) / 5
            if outCount == 0 { return "" }
            return String(unsafeUninitializedCapacity: outCount) { out in
                var buffer: UInt64 = 0, bits = 0, o = 0
                for byte in input {
                    buffer = buffer << 8 | UInt64(byte)
                    bits += 8
                    while bits >= 5 {
                        bits -= 5
                        out[o] = b32Alphabet[Int(buffer >> UInt64(bits) & 31)]
                        o += 1
                    }
                }
                if bits > 0 {
                    out[o] = b32Alphabet[Int(buffer << UInt64(5 - bits) & 31)]
                    o += 1
                }
                return o
            }
        }
    }

    /// Lenient where people copy secrets by hand: case-insensitive, spaces
    /// ignored anywhere, trailing '=' padding ignored, unused trailing bits
    /// ignored (some issuers pick random characters rather than random bytes).
    /// Still rejects characters outside the alphabet (0, 1, 8, 9, ...), '='
    /// before data, and lengths no encoder produces.
    public static func decode(_ s: String) -> [UInt8]? {
        withUTF8Bytes(s) { text in
            var out: [UInt8] = []
            out.reserveCapacity(text.count * 5 / 8)
            var buffer: UInt64 = 0, bits = 0, chars = 0
            var sawPadding = false
            for c in text {
                if c == UInt8(ascii: " ") { continue }
                if c == pad { sawPadding = true; continue }
                if sawPadding { return nil }
                let v = b32Table[Int(c)]
                if v == invalid { return nil }
                buffer = buffer << 5 | UInt64(v)
                bits += 5
                chars += 1
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: buffer >> UInt64(bits)))
                }
            }
            // Characters in the last group: 2, 4, 5, 7 (or 0) are possible;
            // 1, 3, 6 cannot come from whole bytes.
            switch chars % 8 {
            case 1, 3, 6: return nil
            default: return out
            }
        }
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

/// Lowercase hexadecimal.
public enum Hex {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        withByteBuffer(bytes) { input in
            if input.isEmpty { return "" }
            return String(unsafeUninitializedCapacity: input.count * 2) { out in
                var o = 0
                for b in input {
                    out[o] = hexDigits[Int(b >> 4)]
                    out[o + 1] = hexDigits[Int(b & 15)]
                    o += 2
                }
                return o
            }
        }
    }

    /// Accepts upper- and lowercase digits; odd lengths and other characters
    /// give nil.
    public static func decode(_ s: String) -> [UInt8]? {
        withUTF8Bytes(s) { text in
            guard text.count % 2 == 0 else { return nil }
            var out = [UInt8]()
            out.reserveCapacity(text.count / 2)
            var i = 0
            while i < text.count {
                guard let hi = nibble(text[i]), let lo = nibble(text[i + 1]) else { return nil }
                out.append(hi << 4 | lo)
                i += 2
            }
            return out
        }
    }

    @inline(__always)
    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
