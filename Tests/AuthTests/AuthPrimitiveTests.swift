import Testing
import Core
import Crypto
import Auth

@Suite struct ScopeTests {
    @Test func writeImpliesRead() {
        #expect(Scope.write.allows(.read))
        #expect(Scope.write.allows(.write))
        #expect(Scope.read.allows(.read))
        #expect(!Scope.read.allows(.write))
        #expect(Scope.read < Scope.write)
    }

    @Test func readonlyIsAlwaysRead() {
        #expect(Scope.effective(.write, role: .readonly) == .read)
        #expect(Scope.effective(.read, role: .readonly) == .read)
        #expect(Scope.effective(.write, role: .admin) == .write)
        #expect(Scope.effective(.read, role: .admin) == .read)
    }

    @Test func oauthForm() {
        #expect(Scope.read.oauthString == "read")
        #expect(Scope.write.oauthString == "read write")
        #expect(Scope(oauth: "read") == .read)
        #expect(Scope(oauth: "read write") == .write)
        #expect(Scope(oauth: "write") == .write)
        #expect(Scope(oauth: "write read") == .write)
        #expect(Scope(oauth: "read  read") == .read)
        #expect(Scope(oauth: "") == nil)
        #expect(Scope(oauth: "   ") == nil)
        #expect(Scope(oauth: "read admin") == nil)
        #expect(Scope(oauth: "READ") == nil)
        #expect(Scope.parseOAuth("read write") == .write)
        for scope in Scope.allCases { #expect(Scope(oauth: scope.oauthString) == scope) }
    }

    @Test func codableRawValues() {
        #expect(Role(rawValue: "admin") == .admin)
        #expect(Role(rawValue: "readonly") == .readonly)
        #expect(Scope(rawValue: "write") == .write)
    }
}

@Suite struct PasswordHasherTests {
    @Test func hashAndVerify() throws {
        let encoded = try PasswordHasher.hash("correct horse battery staple")
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        #expect(parts.count == 5)
        #expect(encoded.hasPrefix("$scrypt$ln=15,r=8,p=1$"))
        #expect(parts[3].utf8.count == 22)   // 16 bytes, no padding
        #expect(parts[4].utf8.count == 43)   // 32 bytes, no padding
        #expect(!parts[3].contains("=") && !parts[4].contains("="))
        #expect(PasswordHasher.verify("correct horse battery staple", against: encoded))
        #expect(!PasswordHasher.verify("correct horse battery stapl", against: encoded))
        #expect(!PasswordHasher.verify("Correct horse battery staple", against: encoded))
        #expect(!PasswordHasher.verify("", against: encoded))
        #expect(!PasswordHasher.needsRehash(encoded))
    }

    @Test func saltsDiffer() throws {
        #expect(try PasswordHasher.hash("same password") != PasswordHasher.hash("same password"))
    }

    @Test func unicodePassword() throws {
        let encoded = try PasswordHasher.hash("pässwörd 🔑 пароль")
        #expect(PasswordHasher.verify("pässwörd 🔑 пароль", against: encoded))
        #expect(!PasswordHasher.verify("passwort 🔑 пароль", against: encoded))
    }

    @Test func olderCheaperParametersStillVerify() throws {
        // Parameters come from the string: a row made with ln=10,r=4 verifies.
        let salt: [UInt8] = Array(0..<16)
        let key = try Scrypt.derive(password: Array("hunter22".utf8), salt: salt, n: 1 << 10, r: 4, p: 2, length: 32)
        let encoded = "$scrypt$ln=10,r=4,p=2$\(Base64.encode(salt, padded: false))$\(Base64.encode(key, padded: false))"
        #expect(PasswordHasher.verify("hunter22", against: encoded))
        #expect(!PasswordHasher.verify("hunter23", against: encoded))
        #expect(PasswordHasher.needsRehash(encoded))
        // Changing any parameter changes the key: the row no longer verifies.
        #expect(!PasswordHasher.verify("hunter22", against: encoded.replacing("ln=10", with: "ln=11", maxReplacements: 1)))
        #expect(!PasswordHasher.verify("hunter22", against: encoded.replacing("p=2", with: "p=1", maxReplacements: 1)))
    }

    @Test(arguments: [
        "",
        "scrypt",
        "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA$",
        "$bcrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$r=8,ln=15,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=15,r=8$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=15,r=8,p=1,x=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=+15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=15,r=8,p=$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=15,r=8,p=1$!!!!$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAA",
        "$scrypt$ln=15,r=8,p=1$AAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ])
    func malformedIsFalse(_ encoded: String) {
        #expect(!PasswordHasher.verify("password", against: encoded))
        #expect(PasswordHasher.needsRehash(encoded))
    }

    // A tampered row must not make verify allocate gigabytes or spin: these
    // return false at once (the test would take minutes or die otherwise).
    @Test(arguments: [
        "ln=21,r=8,p=1", "ln=40,r=8,p=1", "ln=0,r=8,p=1", "ln=15,r=33,p=1", "ln=15,r=8,p=17",
        "ln=15,r=0,p=1", "ln=15,r=8,p=0", "ln=20,r=32,p=1", "ln=999,r=8,p=1", "ln=1000,r=8,p=1",
    ])
    func absurdParametersRefused(_ params: String) {
        let encoded = "$scrypt$\(params)$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        let start = Time.monotonicNanos()
        #expect(!PasswordHasher.verify("password", against: encoded))
        #expect(Time.monotonicNanos() - start < 50_000_000)
    }

    @Test func dummyHashIsWellFormed() {
        #expect(!PasswordHasher.needsRehash(PasswordHasher.dummyHash))   // parses, current parameters
        #expect(PasswordHasher.dummyHash.hasPrefix("$scrypt$ln=15,r=8,p=1$"))
        #expect(!PasswordHasher.verify("password", against: PasswordHasher.dummyHash))
    }

    @Test func policy() {
        #expect(PasswordHasher.policyViolation("short") != nil)
        #expect(PasswordHasher.policyViolation("1234567") != nil)
        #expect(PasswordHasher.policyViolation("12345678") == nil)
        #expect(PasswordHasher.policyViolation("ääääääää") == nil)       // 8 characters, 16 bytes
        #expect(PasswordHasher.policyViolation(String(repeating: "a", count: 1024)) == nil)
        #expect(PasswordHasher.policyViolation(String(repeating: "a", count: 1025)) != nil)
        #expect(PasswordHasher.policyViolation(String(repeating: "é", count: 513)) != nil)  // 1026 bytes
    }
}

@Suite struct TokenTests {
    static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    @Test(arguments: TokenKind.allCases)
    func generateFormat(_ kind: TokenKind) {
        let (token, hash) = TokenFactory.generate(kind)
        #expect(token.hasPrefix(kind.rawValue))
        #expect(token.utf8.count == 4 + 43)
        #expect(token.utf8.dropFirst(4).allSatisfy { Self.alphabet.contains($0) })
        #expect(Base64URL.decode(String(token.dropFirst(4)))?.count == 32)
        #expect(hash == SHA256.hash(token))
        #expect(TokenKind.of(token) == kind)
        #expect(TokenFactory.hashPresented(token, expecting: [kind]) == hash)
        #expect(TokenFactory.hashPresented(token, expecting: TokenKind.allCases) == hash)
        let others = TokenKind.allCases.filter { $0 != kind }
        #expect(TokenFactory.hashPresented(token, expecting: others) == nil)
        #expect(TokenFactory.hashPresented(token, expecting: []) == nil)
    }

    @Test func tokensAreUnique() {
        let tokens = (0..<1000).map { _ in TokenFactory.generate(.apiToken).token }
        #expect(Set(tokens).count == 1000)
    }

    @Test func prefixes() {
        #expect(TokenKind.of("pmk_x") == .apiToken)
        #expect(TokenKind.of("pma_x") == .oauthAccess)
        #expect(TokenKind.of("pmr_x") == .oauthRefresh)
        #expect(TokenKind.of("pmg_x") == .agent)
        #expect(TokenKind.of("pmx_x") == nil)
        #expect(TokenKind.of("pmk") == nil)
        #expect(TokenKind.of("PMK_x") == nil)
        #expect(TokenKind.of("") == nil)
    }

    @Test func hashPresentedRejectsMalformed() {
        let good = TokenFactory.generate(.apiToken).token
        let body = String(good.dropFirst(4))
        let all = TokenKind.allCases
        #expect(TokenFactory.hashPresented(good, expecting: all) != nil)
        let cut = String(body.dropLast())
        let bads: [String] = [
            "", "pmk_", "pmk_" + cut, "pmk_" + body + "A", "pmk_" + cut + "=",
            "pmk_" + cut + "+", "pmk_" + cut + "/", "pmk_" + cut + " ",
            "pmk_" + cut + "é", "pmx_" + body, "PMK_" + body, " pmk_" + cut,
            "Bearer " + good, String(body.prefix(4)) + body,
        ]
        for bad in bads {
            #expect(TokenFactory.hashPresented(bad, expecting: all) == nil, "\(bad)")
        }
    }
}

@Suite struct TOTPTests {
    // RFC 6238 Appendix B, SHA-1 rows; seed is the ASCII "12345678901234567890".
    static let seed = Array("12345678901234567890".utf8)
    static let vectors: [(Int64, String)] = [
        (59, "94287082"), (1111111109, "07081804"), (1111111111, "14050471"),
        (1234567890, "89005924"), (2000000000, "69279037"), (20000000000, "65353130"),
    ]

    @Test func rfc6238EightDigits() {
        let totp = TOTP(secret: Self.seed, digits: 8)
        for (time, code) in Self.vectors {
            #expect(totp.code(at: time) == code)
        }
    }

    @Test func rfc6238SixDigits() {
        let totp = TOTP(secret: Self.seed)
        for (time, code) in Self.vectors {
            #expect(totp.code(at: time) == String(code.suffix(6)))
            #expect(totp.verify(String(code.suffix(6)), at: time) == time / 30)
        }
    }

    @Test func acceptsOneStepEitherSide() {
        let totp = TOTP(secret: Self.seed)
        let now: Int64 = 1_700_000_015   // middle of a step
        let step = now / 30
        #expect(totp.verify(totp.code(at: now), at: now) == step)
        #expect(totp.verify(totp.code(at: now - 30), at: now) == step - 1)
        #expect(totp.verify(totp.code(at: now + 30), at: now) == step + 1)
        #expect(totp.verify(totp.code(at: now - 60), at: now) == nil)
        #expect(totp.verify(totp.code(at: now + 60), at: now) == nil)
        // Step boundaries: 29 s and 30 s are different steps.
        #expect(totp.code(forStep: step) == totp.code(at: step * 30))
        #expect(totp.code(forStep: step) == totp.code(at: step * 30 + 29))
    }

    @Test func verifyInputHandling() {
        let totp = TOTP(secret: Self.seed)
        let code = totp.code(at: 59)   // "287082"
        #expect(totp.verify(String(code.prefix(3)) + " " + String(code.suffix(3)), at: 59) == 1)
        #expect(totp.verify("94287082", at: 59) == nil)   // too many digits
        #expect(totp.verify("28708", at: 59) == nil)
        #expect(totp.verify("28708a", at: 59) == nil)
        #expect(totp.verify("", at: 59) == nil)
        #expect(totp.verify("２８７０８２", at: 59) == nil)   // full-width digits
        #expect(totp.verify("287083", at: 59) == nil)
    }

    @Test func secrets() {
        let a = TOTP.generateSecret(), b = TOTP.generateSecret()
        #expect(a.count == 20)
        #expect(a != b)
        #expect(Base32.encode(a).utf8.count == 32)
    }

    @Test func otpauthURI() {
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        #expect(totp.otpauthURI(issuer: "pingtxt", account: "alice@example.com")
                == "otpauth://totp/pingtxt:alice%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
                + "&issuer=pingtxt&algorithm=SHA1&digits=6&period=30")
        #expect(totp.otpauthURI(issuer: "ACME Co: Ops & Co", account: "bob smith+1@x.io")
                == "otpauth://totp/ACME%20Co%3A%20Ops%20%26%20Co:bob%20smith%2B1%40x.io"
                + "?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME%20Co%3A%20Ops%20%26%20Co"
                + "&algorithm=SHA1&digits=6&period=30")
        #expect(totp.otpauthURI(issuer: "Hübner", account: "ü").hasPrefix("otpauth://totp/H%C3%BCbner:%C3%BC?"))
    }
}

