import COpenSSL

/// Bytes from OpenSSL's CSPRNG (`RAND_bytes`, seeded from the kernel).
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: bad count \(count)")
        if count == 0 { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Trap rather than throw: if the CSPRNG cannot produce bytes, every
            // token, salt and TOTP secret made from here on would be guessable
            // or all-zero. No caller can recover from that safely, and an
            // error path invites someone to "handle" it with a fallback.
            guard RAND_bytes(buffer.baseAddress, Int32(count)) == 1 else {
                fatalError("\(CryptoError.openSSL("RAND_bytes"))")
            }
            initialized = count
        }
    }
}
