import COpenSSL

/// HMAC (RFC 2104) through OpenSSL's one-shot `HMAC()`, which in 3.0 is not
/// deprecated and runs on EVP_MAC internally. The HMAC_CTX API is deprecated
/// and compiled out by OPENSSL_NO_DEPRECATED.
public enum HMAC {
    public static func sha256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        mac(fetchedSHA256, size: SHA256.byteCount, key: key, data: data)
    }

    /// HMAC-SHA1, for TOTP.
    public static func sha1(key: [UInt8], data: [UInt8]) -> [UInt8] {
        mac(fetchedSHA1, size: SHA1.byteCount, key: key, data: data)
    }

    private static func mac(_ md: OpaquePointer, size: Int, key: [UInt8], data: [UInt8]) -> [UInt8] {
        // HMAC() takes the key length as an Int32; no real key comes near it.
        precondition(key.count <= Int(Int32.max), "HMAC key too long")
        return withBytes(key) { k in
            withBytes(data) { d in
                [UInt8](unsafeUninitializedCapacity: size) { out, count in
                    var length: UInt32 = 0
                    // Non-NULL key pointer even when empty (see withBytes): a NULL
                    // key makes OpenSSL 3 report "no key set".
                    // Failure here means OpenSSL could not allocate; a wrong MAC
                    // must never be returned, so trap as for digests.
                    guard COpenSSL.HMAC(md, k.baseAddress, Int32(k.count),
                               d.baseAddress?.assumingMemoryBound(to: UInt8.self), d.count,
                               out.baseAddress, &length) != nil,
                          Int(length) == size
                    else {
                        fatalError("\(CryptoError.openSSL("HMAC"))")
                    }
                    count = size
                }
            }
        }
    }
}
