import COpenSSL
import Core

/// A public signing key from a JSON Web Key (RFC 7517/7518): RSA (`n`, `e`)
/// or EC P-256 (`crv`, `x`, `y`). Built with OpenSSL 3's `EVP_PKEY_fromdata`,
/// so no deprecated RSA_/EC_KEY calls are needed.
///
/// The EVP_PKEY is immutable after construction and OpenSSL allows
/// concurrent verifications with one key, hence `@unchecked Sendable`.
public final class JWK: @unchecked Sendable {
    public enum KeyType: String, Sendable { case rsa = "RSA", ec = "EC" }

    public let kid: String?
    public let keyType: KeyType
    /// The key's declared `alg`, if any: a token must then use exactly it.
    public let algorithm: String?
    let pkey: OpaquePointer

    /// Smaller RSA moduli are refused: 2048 bits is the floor every provider meets.
    public static let minimumRSABits = 2048

    private init(kid: String?, keyType: KeyType, algorithm: String?, pkey: OpaquePointer) {
        self.kid = kid
        self.keyType = keyType
        self.algorithm = algorithm
        self.pkey = pkey
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Parses one JWK object. Throws for malformed keys and for keys we do
    /// not verify with (`use` other than `sig`, other key types, other curves).
    public static func parse(_ json: JSON) throws(JWTError) -> JWK {
        guard let object = json.objectValue else { throw .malformed("a JWK must be an object") }
        guard let kty = object["kty"]?.stringValue else { throw .malformed("JWK without kty") }
        if let use = object["use"]?.stringValue, use != "sig" { throw .unsupported("JWK with use \(use)") }
        let kid = object["kid"]?.stringValue
        let alg = object["alg"]?.stringValue
        func bytes(_ name: String) throws(JWTError) -> [UInt8] {
            guard let text = object[name]?.stringValue, let value = Base64URL.decode(text), !value.isEmpty else {
                throw .malformed("JWK \(kty) member \(name) missing or not base64url")
            }
            return value
        }
        switch kty {
        case "RSA":
            let n = try bytes("n"), e = try bytes("e")
            let bits = (n.drop { $0 == 0 }.count) * 8
            guard bits >= minimumRSABits else { throw .unsupported("RSA key of \(bits) bits") }
            let key = try makeRSA(n: n, e: e)
            return JWK(kid: kid, keyType: .rsa, algorithm: alg, pkey: key)
        case "EC":
            guard object["crv"]?.stringValue == "P-256" else { throw .unsupported("EC curve \(object["crv"]?.stringValue ?? "none")") }
            let key = try makeEC(point: [0x04] + (try coordinate(bytes("x"))) + (try coordinate(bytes("y"))))
            return JWK(kid: kid, keyType: .ec, algorithm: alg, pkey: key)
        default:
            throw .unsupported("JWK key type \(kty)")
        }
    }

    /// A P-256 coordinate as exactly 32 bytes. RFC 7518 §6.2.1.2 asks for
    /// the full length, but some libraries (authlib, several Java
    /// providers) drop leading zero bytes, about one key in a hundred: those
    /// are left-padded. A longer value is accepted only when what is beyond
    /// 32 bytes is leading zeros (a signed-integer encoding); anything else
    /// is not a P-256 coordinate. The point is still checked on the curve.
    static func coordinate(_ raw: [UInt8]) throws(JWTError) -> [UInt8] {
        if raw.count <= 32 { return [UInt8](repeating: 0, count: 32 - raw.count) + raw }
        guard raw.count == 33, raw[0] == 0 else { throw .malformed("P-256 coordinates must be at most 32 bytes") }
        return Array(raw.dropFirst())
    }

    /// OSSL_PARAM_BLD keeps the key and string pointers it is given until
    /// the params are built (and the params point at the keys afterwards),
    /// so they must outlive the call: a Swift `String` argument would be a
    /// temporary buffer. Static strings live for the whole process.
    private static func cString(_ s: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    private static let selectPublic = Int32(OSSL_KEYMGMT_SELECT_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS
                                            | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS)

    private static func makeRSA(n: [UInt8], e: [UInt8]) throws(JWTError) -> OpaquePointer {
        guard let bld = OSSL_PARAM_BLD_new() else { throw .crypto("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(bld) }
        let bnN = n.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        let bnE = e.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        defer { BN_free(bnN); BN_free(bnE) }
        guard let bnN, let bnE, OSSL_PARAM_BLD_push_BN(bld, cString("n"), bnN) == 1, OSSL_PARAM_BLD_push_BN(bld, cString("e"), bnE) == 1 else {
            throw .crypto("RSA parameters")
        }
        guard let params = OSSL_PARAM_BLD_to_param(bld) else { throw .crypto("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        return try fromParams("RSA", params)
    }

    private static func makeEC(point: [UInt8]) throws(JWTError) -> OpaquePointer {
        guard let bld = OSSL_PARAM_BLD_new() else { throw .crypto("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(bld) }
        // The builder keeps a pointer to the octet string until the params
        // are made, so both happen while the buffer is pinned.
        let params: UnsafeMutablePointer<OSSL_PARAM>? = point.withUnsafeBytes { raw in
            guard OSSL_PARAM_BLD_push_utf8_string(bld, cString("group"), cString("prime256v1"), 0) == 1,
                  OSSL_PARAM_BLD_push_octet_string(bld, cString("pub"), raw.baseAddress, raw.count) == 1 else { return nil }
            return OSSL_PARAM_BLD_to_param(bld)
        }
        guard let params else { throw .crypto("EC parameters") }
        defer { OSSL_PARAM_free(params) }
        return try fromParams("EC", params)
    }

    private static func fromParams(_ type: String, _ params: UnsafeMutablePointer<OSSL_PARAM>) throws(JWTError) -> OpaquePointer {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw .crypto("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &pkey, selectPublic, params) == 1, let pkey else {
            throw .malformed("\(type) key rejected: \(CryptoError.openSSL("EVP_PKEY_fromdata"))")
        }
        // fromdata does not check that an EC point lies on the curve; a point
        // off the curve must never be used for verification.
        if type == "EC" {
            guard let check = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { EVP_PKEY_free(pkey); throw .crypto("check ctx") }
            defer { EVP_PKEY_CTX_free(check) }
            guard EVP_PKEY_public_check(check) == 1 else {
                ERR_clear_error()
                EVP_PKEY_free(pkey)
                throw .malformed("EC point is not on P-256")
            }
        }
        return pkey
    }

    /// EVP_DigestVerify with SHA-256 over `message`; `signature` already in
    /// the form OpenSSL expects (DER for ECDSA).
    func verifySHA256(message: [UInt8], signature: [UInt8]) -> Bool {
        guard let md = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_DigestVerifyInit_ex(md, nil, "SHA256", nil, nil, pkey, nil) == 1 else { ERR_clear_error(); return false }
        let ok = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(md, sig.baseAddress, sig.count, msg.baseAddress, msg.count)
            }
        }
        ERR_clear_error()
        return ok == 1
    }
}

/// A provider's JWKS: the keys we can verify with. Keys of other types
/// (`enc` keys, Ed25519, …) are skipped rather than failing the whole set,
/// because providers publish several kinds side by side.
public struct JWKSet: Sendable {
    public let keys: [JWK]

    public init(keys: [JWK]) { self.keys = keys }

    public init(json: JSON) throws(JWTError) {
        guard let list = json["keys"]?.arrayValue else { throw .malformed("JWKS without a keys array") }
        var keys: [JWK] = []
        for item in list {
            do throws(JWTError) { keys.append(try JWK.parse(item)) } catch {
                if case .crypto = error { throw error }
            }
        }
        self.keys = keys
    }

    public func key(kid: String) -> JWK? { keys.first { $0.kid == kid } }
}
