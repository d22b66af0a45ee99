import COpenSSL

/// scrypt (RFC 7914) through `EVP_PBE_scrypt`.
public enum Scrypt {
    /// Derives `length` bytes. `n` must be a power of two > 1.
    ///
    /// `maxmem` is passed explicitly, computed from the parameters: OpenSSL's
    /// default (32 MiB) already refuses N=2^15, r=8. The caller is responsible
    /// for bounding n, r and p (see PasswordHasher), since this allocates
    /// about 128·r·(N + p) bytes.
    public static func derive(password: [UInt8], salt: [UInt8], n: UInt64, r: UInt64, p: UInt64,
                              length: Int) throws -> [UInt8] {
        guard n > 1, n & (n - 1) == 0 else { throw CryptoError("scrypt: N must be a power of two > 1") }
        guard r > 0, p > 0 else { throw CryptoError("scrypt: r and p must be positive") }
        // A NULL key pointer makes OpenSSL only check the parameters, so a
        // zero length would "succeed" without output.
        guard length > 0 else { throw CryptoError("scrypt: length must be positive") }
        // OpenSSL's own check is Blen + Vlen <= maxmem with
        // Blen = 128·r·p and Vlen = 128·r·(N + 2); add slack for rounding.
        let (nPlus, o1) = n.addingReportingOverflow(2 + p)
        let (perR, o2) = nPlus.multipliedReportingOverflow(by: 128)
        let (needed, o3) = perR.multipliedReportingOverflow(by: r)
        guard !o1, !o2, !o3, needed < UInt64(Int.max) / 2 else {
            throw CryptoError("scrypt: parameters need too much memory")
        }
        let maxmem = needed + 65536

        var failure: CryptoError?
        let key = withBytes(password) { pw in
            withBytes(salt) { s in
                [UInt8](unsafeUninitializedCapacity: length) { out, count in
                    if EVP_PBE_scrypt(pw.baseAddress?.assumingMemoryBound(to: CChar.self), pw.count,
                                      s.baseAddress?.assumingMemoryBound(to: UInt8.self), s.count,
                                      n, r, p, maxmem, out.baseAddress, length) == 1 {
                        count = length
                    } else {
                        failure = CryptoError.openSSL("EVP_PBE_scrypt")
                        count = 0
                    }
                }
            }
        }
        if let failure { throw failure }
        return key
    }
}
