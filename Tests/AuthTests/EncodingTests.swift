import Testing
import Crypto

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct EncodingTests {
    // RFC 4648 §10.
    static let rfcBase64 = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
                            ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")]
    static let rfcBase32 = [("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="),
                            ("foob", "MZXW6YQ="), ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======")]
    static let rfcHex = [("", ""), ("f", "66"), ("fo", "666F"), ("foo", "666F6F"),
                         ("foob", "666F6F62"), ("fooba", "666F6F6261"), ("foobar", "666F6F626172")]

    @Test func base64Vectors() {
        for (plain, encoded) in Self.rfcBase64 {
            #expect(Base64.encode(bytes(plain)) == encoded)
            #expect(Base64.decode(encoded) == bytes(plain))
            let unpadded = String(encoded.filter { $0 != "=" })
            #expect(Base64.encode(bytes(plain), padded: false) == unpadded)
            #expect(Base64.decode(unpadded) == bytes(plain))
            #expect(Base64URL.encode(bytes(plain)) == unpadded)
            #expect(Base64URL.decode(unpadded) == bytes(plain))
        }
    }

    @Test func base32Vectors() {
        for (plain, encoded) in Self.rfcBase32 {
            let unpadded = String(encoded.filter { $0 != "=" })
            #expect(Base32.encode(bytes(plain)) == unpadded)
            #expect(Base32.decode(encoded) == bytes(plain))
            #expect(Base32.decode(unpadded) == bytes(plain))
            #expect(Base32.decode(unpadded.lowercased()) == bytes(plain))
        }
    }

    @Test func hexVectors() {
        for (plain, encoded) in Self.rfcHex {
            #expect(Hex.encode(bytes(plain)) == encoded.lowercased())
            #expect(Hex.decode(encoded) == bytes(plain))
            #expect(Hex.decode(encoded.lowercased()) == bytes(plain))
        }
    }

    @Test func roundTripsAllLengthsAndBytes() {
        for length in 0...70 {
            let data = SecureRandom.bytes(length)
            #expect(Base64.decode(Base64.encode(data)) == data)
            #expect(Base64.decode(Base64.encode(data, padded: false)) == data)
            #expect(Base64URL.decode(Base64URL.encode(data)) == data)
            #expect(Base32.decode(Base32.encode(data)) == data)
            #expect(Hex.decode(Hex.encode(data)) == data)
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(all)) == all)
        #expect(Base64URL.decode(Base64URL.encode(all)) == all)
        #expect(Base32.decode(Base32.encode(all)) == all)
        #expect(Hex.decode(Hex.encode(all)) == all)
        #expect(Hex.encode([0x00, 0xab, 0xff]) == "00abff")
    }

    @Test func alphabetsDiffer() {
        let data: [UInt8] = [0xfb, 0xff, 0xbf]
        #expect(Base64.encode(data) == "+/+/")
        #expect(Base64URL.encode(data) == "-_-_")
        #expect(Base64.decode("-_-_") == nil)
        #expect(Base64URL.decode("+/+/") == nil)
    }

    @Test(arguments: [
        "Zg=", "Zg===", "Z===", "Z", "Zm9vY", "Zm 9v", "Zm9v\n", "=Zm9", "Zg==Zg==", "Zm9v!",
        "Zh==",   // non-zero unused bits (canonical is Zg==)
        "Zm9=",   // non-zero unused bits (canonical is Zm8=)
        "Zm9vYmFy\u{0}", "Zm9vYmFyé",
    ])
    func base64Rejects(_ s: String) {
        #expect(Base64.decode(s) == nil)
    }

    @Test(arguments: ["Zg==", "Zm8=", "Zh", "Zm9", "Z", "Zm9vY", "ab+c", "ab/c", "ab c", "abc.", "Zm9vYmFyé"])
    func base64URLRejects(_ s: String) {
        #expect(Base64URL.decode(s) == nil)
    }

    @Test func base32Lenient() {
        #expect(Base32.decode("mzxw 6ytb oi") == bytes("foobar"))
        #expect(Base32.decode("MZXW6YTBOI======") == bytes("foobar"))
        // Unused trailing bits set: still decodes (humans and some issuers).
        #expect(Base32.decode("MZ") == bytes("f"))
    }

    @Test(arguments: ["M", "MZX", "MZXW6Y", "MZXW6YTB1", "MZXW0", "MZ=XW", "MZ==XW", "MZXW6YT!", "MZXW6YTé"])
    func base32Rejects(_ s: String) {
        #expect(Base32.decode(s) == nil)
    }

    @Test(arguments: ["a", "abc", "0g", "zz", " 00", "0x00", "é0"])
    func hexRejects(_ s: String) {
        #expect(Hex.decode(s) == nil)
    }
}
