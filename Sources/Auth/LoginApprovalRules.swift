import Core
import Crypto
import Store

/// The decisions of approving a web sign-in on the phone (SPEC §11), pure
/// over a stored approval and the injected clock: which phase an approval
/// is in, what the phone's answer does, and whether another approval may
/// be created. `LoginApprovalService` stores what these decide.
///
/// An approval waits `lifetime` seconds for the phone. The phone must send
/// the number the browser shows (number matching: a user who did not start
/// the sign-in cannot know it, so tapping "yes" out of habit or fatigue is
/// not enough); a wrong number or a no refuses it. Either answer is final.
public struct LoginApprovalRules: Sendable {
    public static let lifetime: Int64 = 120
    /// After a yes, the browser (which looks every 2 s) may still pick the
    /// sign-in up this long after the approval's end: a yes in the last
    /// second must not turn into "expired" on the next refresh.
    public static let pickUpGrace: Int64 = 30
    /// Approvals created per account within `creationWindow`, at most: each
    /// one buzzes the user's phones, and whoever has only the password could
    /// otherwise do that without end (ignored approvals count as no failure).
    public static let maxCreated = 5
    public static let creationWindow: Int64 = 15 * 60

    public enum Phase: Sendable, Equatable {
        /// Waiting for the phone.
        case waiting
        /// The phone approved it; the browser has not signed in yet.
        case approved
        case refused
        /// Past its end without an answer (or its waiting session is gone).
        case expired
        /// The browser signed in with it.
        case used
    }

    /// What the phone's answer does.
    public enum Verdict: Sendable, Equatable {
        case approve
        case refuse
        /// The approval already ended: nothing changes.
        case ended
    }

    private let clock: @Sendable () -> Int64

    public init(clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.clock = clock
    }

    public var now: Int64 { clock() }

    public func phase(_ a: LoginApprovalRecord) -> Phase {
        let now = clock()
        // Without its session nobody can be signed in by it any more.
        let alive = a.sessionID != nil
        switch a.status {
        case "pending": return alive && now < a.expiresAt ? .waiting : .expired
        case "approved": return alive && now < a.expiresAt + Self.pickUpGrace ? .approved : .expired
        case "used": return .used
        default: return .refused
        }
    }

    /// Only the right number with `approve` approves; anything else refuses
    /// a waiting approval. The number is compared in constant time (its
    /// length is public: always two digits).
    public func answer(_ a: LoginApprovalRecord, code: String?, approve: Bool) -> Verdict {
        guard phase(a) == .waiting else { return .ended }
        guard approve, let code, constantTimeEquals(Array(code.utf8), Array(a.code.utf8)) else { return .refuse }
        return .approve
    }

    /// Seconds until another approval may be created, or nil when it may be
    /// now; `recent` are the creation times of the account's approvals.
    public func creationRetryAfter(recent: [Int64]) -> Int64? {
        let now = clock()
        let inWindow = recent.filter { now - $0 < Self.creationWindow }.sorted()
        guard inWindow.count >= Self.maxCreated else { return nil }
        let oldestThatCounts = inWindow[inWindow.count - Self.maxCreated]
        return max(1, oldestThatCounts + Self.creationWindow - now)
    }

    /// A new approval's end.
    public func expiry() -> Int64 { clock() + Self.lifetime }

    /// A two-digit number, 10–99, from random bytes: a byte is used only
    /// below 180 (twice 90), so every number is equally likely; nil when
    /// every byte was rejected.
    public static func code(from bytes: some Sequence<UInt8>) -> String? {
        for b in bytes where b < 180 { return String(10 + Int(b) % 90) }
        return nil
    }

    /// A fresh number from the CSPRNG (a byte is rejected with p = 0.3, so
    /// 16 bytes fail together with p < 10⁻⁸; then another 16 are drawn).
    public static func newCode() -> String {
        while true {
            if let c = code(from: SecureRandom.bytes(16)) { return c }
        }
    }

    /// 128 random bits, base64url (22 characters).
    public static func newID() -> String { Base64URL.encode(SecureRandom.bytes(16)) }

    /// Whether a string could be an id made by `newID` (others never reach the database).
    public static func isWellFormedID(_ s: String) -> Bool {
        s.utf8.count == 22 && s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
    }
}
