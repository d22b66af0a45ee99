/// What one hub tells the others through the wake-up channel (SPEC §14,
/// docs/postgres.md "Wake-ups"). A signal only says where to look: what it
/// announces is already committed in the database (the NOTIFY is sent in
/// the same transaction), so a hub that misses one finds the same state at
/// its next resync, later but not wrong.
///
/// Payloads are short ASCII words and carry no secret: everyone who can
/// LISTEN on the database can read them.
public enum WakeSignal: Sendable, Hashable {
    /// Monitors were created, changed, paused or deleted: reload them, and
    /// let parked agent polls see their new assignment.
    case monitors
    /// Agents were created or deleted: reload the roster.
    case agents
    /// A check-now request for this agent is waiting in `check_requests`.
    case check(agentID: Int64)
    /// An agent answered this check-now request (`check_requests`).
    case answered(requestID: String)

    /// The NOTIFY payload.
    public var payload: String {
        switch self {
        case .monitors: "monitors"
        case .agents: "agents"
        case .check(let id): "check:\(id)"
        case .answered(let id): "answered:\(id)"
        }
    }

    /// Parses a payload; nil for anything this binary did not send (another
    /// version's words, or someone else's NOTIFY on the channel): ignored.
    public init?(payload: String) {
        let bytes = Array(payload.utf8)
        guard bytes.count <= 80 else { return nil }
        switch payload {
        case "monitors": self = .monitors
        case "agents": self = .agents
        default:
            if let digits = Self.suffix(bytes, after: "check:") {
                // Positive decimal without sign or leading zero: one spelling per id.
                guard (1...18).contains(digits.count), digits[0] != UInt8(ascii: "0"),
                      digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                      let id = Int64(String(decoding: digits, as: UTF8.self)) else { return nil }
                self = .check(agentID: id)
            } else if let id = Self.suffix(bytes, after: "answered:") {
                guard Self.isRequestID(id) else { return nil }
                self = .answered(requestID: String(decoding: id, as: UTF8.self))
            } else {
                return nil
            }
        }
    }

    /// Request ids as the hub makes them (`c-` and hex): 1–64 of `a-z 0-9 -`.
    public static func isRequestID(_ s: String) -> Bool { isRequestID(Array(s.utf8)) }

    private static func isRequestID(_ b: [UInt8]) -> Bool {
        (1...64).contains(b.count) && b.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }

    private static func suffix(_ bytes: [UInt8], after prefix: String) -> [UInt8]? {
        let p = Array(prefix.utf8)
        guard bytes.count >= p.count, Array(bytes[0..<p.count]) == p else { return nil }
        return Array(bytes[p.count...])
    }
}
