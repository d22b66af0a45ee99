import Testing
import Crypto

private func hex(_ s: String) -> [UInt8] { Hex.decode(s)! }
private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct DigestTests {
    static let message448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

    // FIPS 180-2 appendix B / NIST example values.
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (message448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256(input: String, expected: String) {
        #expect(Hex.encode(SHA256.hash(input)) == expected)
        #expect(Hex.encode(SHA256.hash(bytes(input))) == expected)
        #expect(Hex.encode(SHA256.hash(bytes(input)[...])) == expected)
    }

    @Test(arguments: [
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        (message448, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func sha1(input: String, expected: String) {
        #expect(Hex.encode(SHA1.hash(input)) == expected)
        #expect(Hex.encode(SHA1.hash(bytes(input))) == expected)
    }

    @Test func nonContiguousCollection() {
        // A lazy map is not contiguous: exercises the copying path.
        let lazy = bytes("abc").lazy.map { $0 }
        #expect(Hex.encode(SHA256.hash(lazy)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func millionA() {
        let data = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hex.encode(SHA256.hash(data)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

@Suite struct HMACTests {
    static let tc6Data = "Test Using Larger Than Block-Size Key - Hash Key First"
    static let tc7Data = "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."

    // RFC 4231 §4.2–4.5, 4.7, 4.8 (test case 5 is a truncated output).
    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), bytes("Hi There"),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (bytes("Jefe"), bytes("what do ya want for nothing?"),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (Array(1...25), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        ([UInt8](repeating: 0xaa, count: 131), bytes(tc6Data),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([UInt8](repeating: 0xaa, count: 131), bytes(tc7Data),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func rfc4231(key: [UInt8], data: [UInt8], expected: String) {
        #expect(Hex.encode(HMAC.sha256(key: key, data: data)) == expected)
    }

    // RFC 2202 §3, all seven cases (case 5's full output is checked).
    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), bytes("Hi There"), "b617318655057264e28bc0b6fb378c8ef146be00"),
        (bytes("Jefe"), bytes("what do ya want for nothing?"), "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50), "125d7342b9ac11cd91a39af48aa17b4f63f175d3"),
        (Array(1...25), [UInt8](repeating: 0xcd, count: 50), "4c9007f4026250c6bc8414f9bf50c86c2d7235da"),
        ([UInt8](repeating: 0x0c, count: 20), bytes("Test With Truncation"), "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04"),
        ([UInt8](repeating: 0xaa, count: 80), bytes("Test Using Larger Than Block-Size Key - Hash Key First"),
         "aa4ae5e15272d00e95705637ce8a3b55ed402112"),
        ([UInt8](repeating: 0xaa, count: 80),
         bytes("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data"),
         "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"),
    ])
    func rfc2202(key: [UInt8], data: [UInt8], expected: String) {
        #expect(Hex.encode(HMAC.sha1(key: key, data: data)) == expected)
    }

    @Test func emptyKeyAndData() {
        // Well-known value; also proves an empty key is not treated as "no key".
        #expect(Hex.encode(HMAC.sha256(key: [], data: []))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}

@Suite struct ScryptTests {
    // RFC 7914 §12, the two small vectors.
    @Test func rfc7914Empty() throws {
        let key = try Scrypt.derive(password: [], salt: [], n: 16, r: 1, p: 1, length: 64)
        #expect(key == hex("77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
                           + "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"))
    }

    @Test func rfc7914Password() throws {
        let key = try Scrypt.derive(password: bytes("password"), salt: bytes("NaCl"), n: 1024, r: 8, p: 16, length: 64)
        #expect(key == hex("fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
                           + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"))
    }

    @Test func defaultMaxmemWouldFailButExplicitWorks() throws {
        // N=2^15, r=8 needs 32 MiB + a bit: over OpenSSL's default maxmem.
        let key = try Scrypt.derive(password: bytes("pw"), salt: bytes("salt"), n: 1 << 15, r: 8, p: 1, length: 32)
        #expect(key.count == 32)
    }

    @Test func badParametersThrow() {
        #expect(throws: CryptoError.self) { try Scrypt.derive(password: [], salt: [], n: 1000, r: 1, p: 1, length: 32) }
        #expect(throws: CryptoError.self) { try Scrypt.derive(password: [], salt: [], n: 16, r: 0, p: 1, length: 32) }
        #expect(throws: CryptoError.self) { try Scrypt.derive(password: [], salt: [], n: 16, r: 1, p: 1, length: 0) }
        #expect(throws: CryptoError.self) {
            try Scrypt.derive(password: [], salt: [], n: 1 << 62, r: 1 << 20, p: 1, length: 32)
        }
    }
}

@Suite struct RandomAndCompareTests {
    @Test func randomBytes() {
        #expect(SecureRandom.bytes(0).isEmpty)
        let a = SecureRandom.bytes(32), b = SecureRandom.bytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
    }

    @Test func constantTime() {
        #expect(constantTimeEquals([UInt8](), [UInt8]()))
        #expect(constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!constantTimeEquals([9, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!constantTimeEquals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(!constantTimeEquals([1, 2] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!constantTimeEquals([] as [UInt8], [0] as [UInt8]))
        #expect(constantTimeEquals("abc".utf8, [97, 98, 99] as [UInt8]))
        #expect(constantTimeEquals([1, 2, 3].lazy.map { UInt8($0) }, [1, 2, 3] as [UInt8]))
    }

    @Test func errorCarriesOpenSSLText() {
        do {
            // Passes our checks, but OpenSSL requires N < 2^(16·r): its error text must show.
            _ = try Scrypt.derive(password: [], salt: [], n: 1 << 16, r: 1, p: 1, length: 32)
            Issue.record("expected an error")
        } catch let error as CryptoError {
            #expect(error.message.hasPrefix("EVP_PBE_scrypt failed: error:"))   // "...memory limit exceeded"
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
