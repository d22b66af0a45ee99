import Core
import Crypto
import Testing
import TestSupport

/// Keys are made once per process with the openssl CLI (key generation is
/// the slow part: RSA 2048 takes a moment on a loaded machine).
private enum Keys {
    static let rsa = TestSigningKey(.rsa, kid: "rsa-1")!
    static let ec = TestSigningKey(.ec, kid: "ec-1")!
    static let other = TestSigningKey(.rsa, kid: "rsa-1")!   // same kid, different key
    static var set: JWKSet { try! JWKSet(json: ["keys": [rsa.jwk, ec.jwk]]) }
}

private let claims: JSON = ["iss": "https://idp.example", "sub": "42", "aud": "hub"]

@Suite struct JWTTests {
    @Test func rs256AndES256Verify() throws {
        for key in [Keys.rsa, Keys.ec] {
            let verified = try JWT.verify(key.sign(claims: claims), keys: Keys.set)
            #expect(verified.algorithm == key.algorithm)
            #expect(verified.kid == key.kid)
            #expect(verified.claims["sub"] == "42")
        }
    }

    /// Every way a token must be refused, with the error it must give.
    @Test func refusals() {
        func tamperPayload(_ token: String) -> String {
            let parts = token.split(separator: ".").map(String.init)
            let other = Base64URL.encode(JSON.object(JSONObject([("iss", "https://idp.example"), ("sub", "43"), ("aud", "hub")])).serialized())
            return parts[0] + "." + other + "." + parts[2]
        }
        func unsigned(_ alg: String) -> String {
            let h = Base64URL.encode(JSON.object(JSONObject([("alg", .string(alg)), ("kid", "rsa-1")])).serialized())
            return h + "." + Base64URL.encode(claims.serialized()) + "."
        }
        let hmacLike: String = {
            // HS256 "signed" with the RSA key's public JWK as the secret: the
            // classic confusion attack; refused on the algorithm alone.
            let secret = Keys.rsa.jwk.serialized()
            let h = Base64URL.encode(JSON.object(JSONObject([("alg", "HS256"), ("kid", "rsa-1")])).serialized())
            let input = h + "." + Base64URL.encode(claims.serialized())
            return input + "." + Base64URL.encode(HMAC.sha256(key: secret, data: Array(input.utf8)))
        }()
        let cases: [(String, String, JWTError)] = [
            ("alg none", unsigned("none"), .algorithmNotAllowed("none")),
            ("alg None", unsigned("None"), .algorithmNotAllowed("None")),
            ("HS256 with the public key as secret", hmacLike, .algorithmNotAllowed("HS256")),
            ("RS512", Keys.rsa.sign(claims: claims, header: [("alg", "RS512")]), .algorithmNotAllowed("RS512")),
            ("ES256 header on an RSA key", Keys.rsa.sign(claims: claims, header: [("alg", "ES256")]), .keyMismatch("ES256 with a RSA key")),
            ("RS256 header on an EC key", Keys.ec.sign(claims: claims, header: [("alg", "RS256")]), .keyMismatch("RS256 with a EC key")),
            ("unknown kid", Keys.rsa.sign(claims: claims, header: [("kid", "rotated")]), .unknownKey("rotated")),
            ("tampered payload", tamperPayload(Keys.rsa.sign(claims: claims)), .badSignature),
            ("tampered ES256 payload", tamperPayload(Keys.ec.sign(claims: claims)), .badSignature),
            ("signed by another key with the same kid", Keys.other.sign(claims: claims), .badSignature),
            ("two parts", "a.b", .malformed("expected three dot-separated parts")),
            ("padding in base64url", Keys.rsa.sign(claims: claims) + "=", .malformed("a part is not base64url")),
            ("crit header", Keys.rsa.sign(claims: claims, header: [("crit", ["exp"])]), .unsupported("crit header")),
        ]
        for (name, token, expected) in cases {
            #expect(throws: expected, "\(name)") { try JWT.verify(token, keys: Keys.set) }
        }
    }

    @Test func kidlessTokenNeedsASingleCandidate() throws {
        let token = Keys.ec.sign(claims: claims, header: [("kid", .null)])
        // `kid: null` is not a string, so the token counts as kid-less.
        #expect(try JWT.verify(token, keys: Keys.set).algorithm == "ES256")
        let twoEC = try JWKSet(json: ["keys": [Keys.ec.jwk, TestSigningKey(.ec, kid: "ec-2")!.jwk]])
        #expect(throws: JWTError.unknownKey(nil)) { try JWT.verify(token, keys: twoEC) }
    }

    @Test func keyDeclaredAlgorithmMustMatch() throws {
        let set = try JWKSet(json: ["keys": [Keys.rsa.jwk(overriding: [("alg", "PS256")])]])
        #expect(throws: JWTError.keyMismatch("key is for PS256, token uses RS256")) {
            try JWT.verify(Keys.rsa.sign(claims: claims), keys: set)
        }
    }

    @Test func jwksSkipsKeysItCannotUse() throws {
        let set = try JWKSet(json: ["keys": [
            Keys.rsa.jwk(overriding: [("use", "enc"), ("kid", "enc")]),
            ["kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "ed"],
            Keys.ec.jwk(overriding: [("crv", "P-384"), ("kid", "p384")]),
            ["kty": "RSA", "kid": "short", "n": .string(Base64URL.encode([UInt8](repeating: 0xC1, count: 128))), "e": "AQAB"],
            Keys.ec.jwk,
        ]])
        #expect(set.keys.map(\.kid) == ["ec-1"])
        #expect(throws: JWTError.self) { try JWKSet(json: ["nokeys": []]) }
    }

    @Test func ecPointOffTheCurveIsRefused() {
        var x = Base64URL.decode(Keys.ec.jwk["x"]!.stringValue!)!
        x[31] ^= 1
        // OpenSSL 3 already refuses the point in EVP_PKEY_fromdata; our own
        // public check stays as a second guard.
        #expect {
            try JWK.parse(Keys.ec.jwk(overriding: [("x", .string(Base64URL.encode(x)))]))
        } throws: { error in
            if case .malformed = error as? JWTError { return true }
            return false
        }
    }

    /// Short coordinates (leading zeros dropped) are padded; a 33-byte one
    /// with a leading zero is accepted; anything longer is refused.
    @Test func ecCoordinateLengths() throws {
        let key = try #require(TestSigningKey(ecWithLeadingZeroCoordinate: "ec-short"))
        let minimal = key.minimalJWK
        let x = Base64URL.decode(minimal["x"]!.stringValue!)!, y = Base64URL.decode(minimal["y"]!.stringValue!)!
        #expect(x.count < 32 || y.count < 32)
        let set = try JWKSet(json: ["keys": [minimal]])
        #expect(try JWT.verify(key.sign(claims: claims), keys: set).kid == "ec-short")
        let full = Base64URL.decode(Keys.ec.jwk["x"]!.stringValue!)!
        _ = try JWK.parse(Keys.ec.jwk(overriding: [("x", .string(Base64URL.encode([0] + full)))]))
        for bad in [[1] + full, [0, 0] + full] {
            #expect(throws: JWTError.self) { try JWK.parse(Keys.ec.jwk(overriding: [("x", .string(Base64URL.encode(bad)))])) }
        }
    }

    @Test func ecdsaSignatureConversionRoundTrips() {
        // High bit set in r (needs a 0x00 pad) and leading zeros in s (stripped).
        let r = [UInt8](repeating: 0xFF, count: 32)
        let s = [0, 0] + [UInt8](repeating: 0x01, count: 30)
        let der = ECDSASignature.derFromJOSE(r + s, coordinateBytes: 32)!
        #expect(der[0] == 0x30 && der[2] == 0x02 && der[3] == 33 && der[4] == 0)
        #expect(ECDSASignature.joseFromDER(der, coordinateBytes: 32) == r + s)
        #expect(ECDSASignature.derFromJOSE([1, 2, 3], coordinateBytes: 32) == nil)
    }
}
