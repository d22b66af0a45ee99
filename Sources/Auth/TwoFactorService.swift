import Core
import Crypto
import Store

/// TOTP two-factor authentication (SPEC §3): enrolment with a pending
/// secret, confirmation by a first code, 10 single-use recovery codes,
/// turning it off, and the check at login.
///
/// Recovery codes carry 80 random bits (16 base32 characters, shown as
/// `abcd-efgh-ijkl-mnop`), so an unsalted SHA-256 is enough to store them:
/// guessing 2^80 inputs is out of reach, and a slow hash would make the
/// login check of 10 codes take a second.
public final class TwoFactorService: Sendable {
    public static let recoveryCodeCount = 10

    private let database: Database
    private let issuer: String
    private let clock: @Sendable () -> Int64

    public init(database: Database, issuer: String, clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.issuer = issuer
        self.clock = clock
    }

    /// Stores a new pending secret (replacing an earlier pending one) and
    /// returns it in base32 with its `otpauth://` URI. 2FA stays off until
    /// `confirm`, so a half-done enrolment never locks anyone out.
    public func enroll(userID: Int64) throws -> (secret: String, otpauthURI: String) {
        let secret = TOTP.generateSecret()
        let encoded = Base32.encode(secret)
        let email = try database.write { c -> String in
            guard let user = try Users.find(c, id: userID) else { throw AuthError.notFound("No such user.") }
            if user.totpEnabled {
                throw AuthError.conflict(code: "totp_already_enabled",
                                         message: "Two-factor authentication is already on; turn it off first.")
            }
            try RecoveryCodes.setTOTP(c, userID: userID, secret: encoded, enabled: false, now: clock())
            return user.email
        }
        return (encoded, TOTP(secret: secret).otpauthURI(issuer: issuer, account: email))
    }

    /// Checks a code against the pending secret, turns 2FA on and returns the
    /// recovery codes (shown once; only their hashes are kept).
    public func confirm(userID: Int64, code: String) throws -> [String] {
        let codes = (0..<Self.recoveryCodeCount).map { _ in Self.newRecoveryCode() }
        try database.write { c in
            guard let user = try Users.find(c, id: userID) else { throw AuthError.notFound("No such user.") }
            if user.totpEnabled {
                throw AuthError.conflict(code: "totp_already_enabled", message: "Two-factor authentication is already on.")
            }
            guard let secret = user.totpSecret.flatMap(Base32.decode) else {
                throw AuthError.conflict(code: "totp_not_enrolled", message: "Start with POST /api/account/2fa to get a secret.")
            }
            guard let step = TOTP(secret: secret).verify(code, at: clock()) else {
                throw AuthError.invalid(field: "code", message: "The code is wrong or too old.")
            }
            try RecoveryCodes.setTOTP(c, userID: userID, secret: user.totpSecret, enabled: true, now: clock())
            _ = try RecoveryCodes.spendTOTPStep(c, userID: userID, step: step)
            try RecoveryCodes.replace(c, userID: userID, hashes: codes.map(Self.hash))
        }
        Log.shared.info("two-factor authentication turned on", ["user_id": "\(userID)"])
        return codes
    }

    /// Turns 2FA off after a valid code (TOTP or recovery code).
    public func disable(userID: Int64, code: String) throws {
        try database.write { c in
            guard let user = try Users.find(c, id: userID) else { throw AuthError.notFound("No such user.") }
            guard user.totpEnabled else {
                throw AuthError.conflict(code: "totp_not_enabled", message: "Two-factor authentication is not on.")
            }
            guard try Self.check(c, user: user, code: code, now: clock()) else {
                throw AuthError.invalid(field: "code", message: "The code is wrong, too old or already used.")
            }
            try RecoveryCodes.setTOTP(c, userID: userID, secret: nil, enabled: false, now: clock())
            try RecoveryCodes.deleteAll(c, userID: userID)
        }
        Log.shared.info("two-factor authentication turned off", ["user_id": "\(userID)"])
    }

    /// The login check: a TOTP code of this step ±1 whose step was not used
    /// before, or an unused recovery code (then spent).
    public func verify(userID: Int64, code: String) throws -> Bool {
        try database.write { c in
            guard let user = try Users.find(c, id: userID), user.totpEnabled else { return false }
            return try Self.check(c, user: user, code: code, now: clock())
        }
    }

    public func remainingRecoveryCodes(userID: Int64) throws -> Int {
        try database.read { try RecoveryCodes.remaining($0, userID: userID) }
    }

    /// Runs inside the caller's write transaction, so a step or recovery code
    /// is spent atomically with its check: two racing logins cannot both use it.
    static func check(_ c: Connection, user: UserRecord, code: String, now: Int64) throws -> Bool {
        if let secret = user.totpSecret.flatMap(Base32.decode), let step = TOTP(secret: secret).verify(code, at: now) {
            return try RecoveryCodes.spendTOTPStep(c, userID: user.id, step: step)
        }
        guard let normalized = normalizeRecoveryCode(code) else { return false }
        return try RecoveryCodes.consume(c, userID: user.id, hash: SHA256.hash(normalized), at: now)
    }

    static func newRecoveryCode() -> String {
        let raw = Base32.encode(SecureRandom.bytes(10)).lowercased()   // 16 characters, no padding
        let chars = Array(raw)
        return stride(from: 0, to: 16, by: 4).map { String(chars[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// Case, spaces and dashes do not matter when typing a recovery code.
    static func normalizeRecoveryCode(_ code: String) -> String? {
        let kept = code.lowercased().filter { $0 != "-" && $0 != " " }
        return kept.count == 16 ? kept : nil
    }

    static func hash(_ code: String) -> [UInt8] {
        SHA256.hash(normalizeRecoveryCode(code) ?? code)
    }
}
