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

    /// The answer kept under `key`, or `make()`'s, kept for the next call.
    /// `make` runs outside the lock: two callers at once may both run it,
    /// and both answers are the same. Not generic: called from another
    /// module, a generic function is not specialised and looks its type's
    /// metadata up at run time, on every request.
    public func answer(_ key: String, _ make: () -> AnyObject & Sendable) -> AnyObject & Sendable {
        if let kept = answers.withLock({ $0[key] }) { return kept }
        let made = make()
        answers.withLock { $0[key] = made }
        return made
    }
}
