import COpenSSL

/// Compares two byte sequences in time that depends only on their lengths,
/// never on where they first differ, so secrets (token hashes, password
/// hashes, TOTP codes) cannot be recovered byte by byte through timing.
/// Different lengths return false immediately: lengths are public (hashes
/// and codes have fixed sizes), contents are not.
public func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    let count = a.count
    guard count == b.count else { return false }
    if count == 0 { return true }
    // CRYPTO_memcmp is written so the compiler cannot turn it into an early exit.
    return withBytes(a) { x in
        withBytes(b) { y in
            CRYPTO_memcmp(x.baseAddress, y.baseAddress, count) == 0
        }
    }
}
