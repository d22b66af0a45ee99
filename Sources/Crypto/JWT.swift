import Core

/// Why a JWT was refused. The texts name the problem, never the token.
public enum JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsupported(String)
    /// `alg: none`, HMAC, or anything but RS256/ES256.
    case algorithmNotAllowed(String)
    /// No key with the token's `kid` (or no `kid` and no single candidate):
    /// the caller may refetch the JWKS once, the provider may have rotated.
    case unknownKey(String?)
    /// The key's type or declared `alg` does not fit the token's `alg`.
    case keyMismatch(String)
    case badSignature
    case crypto(String)

    public var description: String {
        switch self {
        case .malformed(let m): "malformed token or key: \(m)"
        case .unsupported(let m): "unsupported: \(m)"
        case .algorithmNotAllowed(let a): "signature algorithm \(a) is not allowed"
        case .unknownKey(let kid): "no signing key with kid \(kid ?? "(none)")"
        case .keyMismatch(let m): "key does not fit the token: \(m)"
        case .badSignature: "signature does not verify"
        case .crypto(let m): "OpenSSL failure: \(m)"
        }
    }
}

/// A JWS whose signature verified. Claims are not checked here (issuer,
/// audience, expiry… belong to the caller, who knows what to expect).
public struct VerifiedJWT: Sendable {
    public let header: JSONObject
    public let claims: JSONObject
    public let algorithm: String
    public let kid: String?
}

/// JWS compact serialization (RFC 7515) verification for ID tokens:
/// RS256 and ES256 only. The algorithm comes from the header but must fit
/// the key, so a token cannot talk us into `none` or into HMAC with a public
/// key as the secret.
public enum JWT {
    public static let allowedAlgorithms: Set<String> = ["RS256", "ES256"]
    /// ID tokens are small; a huge one is an attack on the parser.
    public static let maxLength = 16 * 1024

    /// The decoded header and claims without any verification: for reading
    /// `kid` before choosing keys, and for tests. Never trust its claims.
    public static func decodeUnverified(_ token: String) throws(JWTError) -> (header: JSONObject, claims: JSONObject, signingInput: [UInt8], signature: [UInt8]) {
        guard token.utf8.count <= maxLength else { throw .malformed("token longer than \(maxLength) bytes") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected three dot-separated parts") }
        guard let headerBytes = Base64URL.decode(String(parts[0])),
              let payloadBytes = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2])) else {
            throw .malformed("a part is not base64url")
        }
        guard let header = (try? JSON.parse(headerBytes, maxDepth: 8))?.objectValue else { throw .malformed("header is not a JSON object") }
        guard let claims = (try? JSON.parse(payloadBytes, maxDepth: 16))?.objectValue else { throw .malformed("payload is not a JSON object") }
        let signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        return (header, claims, signingInput, signature)
    }

    /// Verifies `token` against `keys`. Throws `.unknownKey` when the key is
    /// missing so the caller can refresh the key set and try again.
    public static func verify(_ token: String, keys: JWKSet) throws(JWTError) -> VerifiedJWT {
        let parts = try decodeUnverified(token)
        guard let alg = parts.header["alg"]?.stringValue else { throw .malformed("header without alg") }
        guard allowedAlgorithms.contains(alg) else { throw .algorithmNotAllowed(alg) }
        // `crit` names extensions we would have to understand; we understand none.
        if parts.header["crit"] != nil { throw .unsupported("crit header") }
        let wanted: JWK.KeyType = alg == "RS256" ? .rsa : .ec
        let kid = parts.header["kid"]?.stringValue
        let key: JWK
        if let kid {
            guard let found = keys.key(kid: kid) else { throw .unknownKey(kid) }
            key = found
        } else {
            // Without a kid only an unambiguous key set is acceptable.
            let candidates = keys.keys.filter { $0.keyType == wanted }
            guard candidates.count == 1 else { throw .unknownKey(nil) }
            key = candidates[0]
        }
        guard key.keyType == wanted else { throw .keyMismatch("\(alg) with a \(key.keyType.rawValue) key") }
        if let declared = key.algorithm, declared != alg { throw .keyMismatch("key is for \(declared), token uses \(alg)") }
        let signature: [UInt8]
        if alg == "ES256" {
            guard let der = ECDSASignature.derFromJOSE(parts.signature, coordinateBytes: 32) else { throw .badSignature }
            signature = der
        } else {
            signature = parts.signature
        }
        guard key.verifySHA256(message: parts.signingInput, signature: signature) else { throw .badSignature }
        return VerifiedJWT(header: parts.header, claims: parts.claims, algorithm: alg, kid: kid)
    }
}

/// JOSE carries ECDSA signatures as fixed-width `r || s` (RFC 7518 §3.4);
/// OpenSSL wants DER `SEQUENCE { INTEGER r, INTEGER s }`.
public enum ECDSASignature {
    public static func derFromJOSE(_ raw: [UInt8], coordinateBytes: Int) -> [UInt8]? {
        guard raw.count == 2 * coordinateBytes else { return nil }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }   // keep it positive
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<coordinateBytes]) + integer(raw[coordinateBytes...])
        // P-256: at most 2 × 35 bytes, so the short length form always fits.
        guard body.count < 128 else { return nil }
        return [0x30, UInt8(body.count)] + body
    }

    /// DER back to `r || s` (for signers in tests and tools). Nil when malformed.
    public static func joseFromDER(_ der: [UInt8], coordinateBytes: Int) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var out: [UInt8] = []
        var i = 2
        for _ in 0..<2 {
            guard i + 2 <= der.count, der[i] == 0x02 else { return nil }
            let len = Int(der[i + 1])
            guard i + 2 + len <= der.count else { return nil }
            let value = Array(der[(i + 2)..<(i + 2 + len)].drop { $0 == 0 })
            guard value.count <= coordinateBytes else { return nil }
            out += [UInt8](repeating: 0, count: coordinateBytes - value.count) + value
            i += 2 + len
        }
        return i == der.count ? out : nil
    }
}
