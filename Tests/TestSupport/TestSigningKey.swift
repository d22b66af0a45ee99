import COpenSSL
import Core
import Crypto
#if canImport(Glibc)
import Glibc
#endif

/// A private signing key made with the openssl CLI at test time (RSA 2048 or
/// EC P-256), loaded through PEM, that signs JWS compact tokens (RS256 /
/// ES256) and publishes its public half as a JWK. Test-only: the hub itself
/// never signs JWTs.
public final class TestSigningKey: @unchecked Sendable {
    public enum Kind: Sendable { case rsa, ec }

    public let kind: Kind
    public let kid: String
    private let pkey: OpaquePointer

    public var algorithm: String { kind == .rsa ? "RS256" : "ES256" }

    /// Nil when the openssl CLI or PEM loading fails (the caller's test fails).
    public init?(_ kind: Kind, kid: String) {
        var template = Array("/tmp/pingtxt-jwk-XXXXXX".utf8CString)
        guard let p = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        let dir = String(cString: p)
        defer { _ = runProgram(["rm", "-rf", dir]) }
        let path = dir + "/key.pem"
        let options = kind == .rsa ? ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
                                   : ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
        guard runProgram(["openssl", "genpkey"] + options + ["-out", path]) == 0,
              let bio = BIO_new_file(path, "r") else { return nil }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { return nil }
        self.kind = kind
        self.kid = kid
        self.pkey = key
    }

    /// A P-256 key whose public x or y coordinate starts with a zero byte
    /// (about one key in 128), generated in process until one does: the keys
    /// that libraries publishing minimal-length coordinates get wrong.
    public init?(ecWithLeadingZeroCoordinate kid: String) {
        for _ in 0..<20_000 {
            guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
            defer { EVP_PKEY_CTX_free(ctx) }
            var key: OpaquePointer?
            guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
                  EVP_PKEY_generate(ctx, &key) == 1, let key else { return nil }
            if Self.bignum(key, "qx", width: 32).first == 0 || Self.bignum(key, "qy", width: 32).first == 0 {
                self.kind = .ec
                self.kid = kid
                self.pkey = key
                return
            }
            EVP_PKEY_free(key)
        }
        return nil
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The public key as a JWK (`kid`, `alg`, `use: sig`).
    public var jwk: JSON {
        switch kind {
        case .rsa:
            return ["kty": "RSA", "kid": .string(kid), "use": "sig", "alg": "RS256",
                    "n": .string(Base64URL.encode(bignum("n", width: 0))), "e": .string(Base64URL.encode(bignum("e", width: 0)))]
        case .ec:
            return ["kty": "EC", "kid": .string(kid), "use": "sig", "alg": "ES256", "crv": "P-256",
                    "x": .string(Base64URL.encode(bignum("qx", width: 32))), "y": .string(Base64URL.encode(bignum("qy", width: 32)))]
        }
    }

    /// The EC JWK with leading zero bytes of x and y left out, as authlib
    /// and several Java providers publish them (RFC 7518 asks for 32 bytes).
    public var minimalJWK: JSON {
        guard kind == .ec else { return jwk }
        func minimal(_ name: String) -> JSON { .string(Base64URL.encode(Array(bignum(name, width: 32).drop { $0 == 0 }))) }
        return jwk(overriding: [("x", minimal("qx")), ("y", minimal("qy"))])
    }

    /// A JWK with the same `kid` but the given JSON members replaced.
    public func jwk(overriding changes: [(String, JSON)]) -> JSON {
        var entries = jwk.objectValue!.entries.map { ($0.key, $0.value) }
        for (k, v) in changes {
            if let i = entries.firstIndex(where: { $0.0 == k }) { entries[i].1 = v } else { entries.append((k, v)) }
        }
        return .object(JSONObject(entries))
    }

    private func bignum(_ name: String, width: Int) -> [UInt8] { Self.bignum(pkey, name, width: width) }

    private static func bignum(_ pkey: OpaquePointer, _ name: String, width: Int) -> [UInt8] {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else { return [] }
        defer { BN_free(bn) }
        let size = width > 0 ? width : Int((BN_num_bits(bn) + 7) / 8)
        var out = [UInt8](repeating: 0, count: size)
        _ = BN_bn2binpad(bn, &out, Int32(size))
        return out
    }

    /// `header.payload.signature` with `alg` and `kid` set unless `header`
    /// overrides them.
    public func sign(claims: JSON, header: [(String, JSON)] = []) -> String {
        var h: [(String, JSON)] = [("alg", .string(algorithm)), ("kid", .string(kid)), ("typ", "JWT")]
        for (k, v) in header {
            if let i = h.firstIndex(where: { $0.0 == k }) { h[i].1 = v } else { h.append((k, v)) }
        }
        let input = Base64URL.encode(JSON.object(JSONObject(h)).serialized()) + "." + Base64URL.encode(claims.serialized())
        return input + "." + Base64URL.encode(signature(Array(input.utf8)))
    }

    /// The raw JOSE signature (RS256: PKCS#1 v1.5; ES256: r || s).
    public func signature(_ message: [UInt8]) -> [UInt8] {
        guard let md = EVP_MD_CTX_new() else { return [] }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_DigestSignInit_ex(md, nil, "SHA256", nil, nil, pkey, nil) == 1 else { return [] }
        var length = 0
        guard EVP_DigestSign(md, nil, &length, message, message.count) == 1 else { return [] }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(md, &out, &length, message, message.count) == 1 else { return [] }
        out.removeSubrange(length...)
        if kind == .ec { return ECDSASignature.joseFromDER(out, coordinateBytes: 32) ?? [] }
        return out
    }
}
