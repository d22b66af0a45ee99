import Core
import Synchronization

/// A caller the `CredentialCache` keeps: the principal a database check
/// established (without password hash or TOTP secret), when, and answers
/// made from it alone. One object, so a lookup on the event loop takes one
/// reference instead of copying the principal's strings.
///
/// The answers (`/api/me`'s body) live exactly as long as the principal
/// may be used — the second it was checked in, with no credential change
/// since — so they can never outlive it. Building `/api/me`'s JSON was a
/// tenth of the request's CPU on the event loop; a script or phone polling
/// it gets the same bytes within the second.
public final class KeptCaller: Sendable {
    public let principal: Principal
    let generation: UInt64
    let checkedAt: Int64
    private let answers = Mutex<[String: AnyObject & Sendable]>([:])

    init(principal: Principal, generation: UInt64, checkedAt: Int64) {
        (self.principal, self.generation, self.checkedAt) = (principal, generation, checkedAt)
    }

    /// The answers of the caller a thread answered last, so an event loop
    /// serving one token again and again takes no lock shared with the
    /// other loops (see `CredentialCache.ThreadCopy`). Strong, so the
    /// caller's address cannot be reused by another while kept here.
    /// Only its own thread touches it, and no access to a field overlaps
    /// another, so the runtime's exclusivity check (about 80 instructions
    /// per access) is off for its fields.
    private final class ThreadAnswers {
        @exclusivity(unchecked) var caller: KeptCaller?
        /// A route or two per caller: compared in order, which costs less
        /// than hashing the key.
        @exclusivity(unchecked) var answers: [(key: String, answer: AnyObject & Sendable)] = []
    }

    private static let threadAnswers = ThreadLocal { ThreadAnswers() }

    /// The answer kept under `key`, or `make()`'s, kept for the next call.
    /// `make` runs outside the lock: two callers at once may both run it,
    /// and both answers are the same. Not generic: called from another
    /// module, a generic function is not specialised and looks its type's
    /// metadata up at run time, on every request.
    public func answer(_ key: String, _ make: () -> AnyObject & Sendable) -> AnyObject & Sendable {
        let local = Self.threadAnswers.value
        if local.caller === self, let kept = local.answers.first(where: { $0.key == key }) { return kept.answer }
        if local.caller !== self {
            local.caller = self
            local.answers.removeAll(keepingCapacity: true)
        }
        let answer: AnyObject & Sendable
        if let kept = answers.withLock({ $0[key] }) {
            answer = kept
        } else {
            answer = make()
            answers.withLock { $0[key] = answer }
        }
        local.answers.append((key, answer))
        return answer
    }
}
