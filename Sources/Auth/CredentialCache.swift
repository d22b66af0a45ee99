import Core
import Store
import Synchronization

/// Bearer tokens this hub checked against the database in the current
/// second, by the SHA-256 of the token (never the token itself), so a route
/// that needs nothing but the caller (`/api/me`) can answer on the event
/// loop instead of taking a database read and a worker thread's round trip.
///
/// A kept principal is used only while all of these hold, else the caller
/// reads the database as before:
/// - the clock's second is the one it was checked in: a change made by
///   another process (another hub, the CLI) is seen within a second;
/// - `Database.credentialGeneration` is what it was before that read: any
///   change this hub commits (a token revoked, a role changed, a user
///   deleted, a sign-in ended) drops every kept principal at once.
/// The token's expiry needs no check of its own: expiries are whole seconds,
/// and the database check refused a token expiring in the second it ran.
/// Only successes are kept: an unknown token always reaches the database.
/// Kept principals carry no password hash and no TOTP secret.
final class CredentialCache: Sendable {
    /// The first 8 bytes of a SHA-256 pick the bucket (they are uniform, and
    /// a caller cannot aim them); equality compares all 32.
    struct Digest: Hashable, Sendable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        init?(_ hash: [UInt8]) {
            guard hash.count == 32 else { return nil }
            func word(_ at: Int) -> UInt64 {
                var w: UInt64 = 0
                for i in at..<(at + 8) { w = w << 8 | UInt64(hash[i]) }
                return w
            }
            words = (word(0), word(8), word(16), word(24))
        }

        static func == (a: Digest, b: Digest) -> Bool { a.words == b.words }
        func hash(into hasher: inout Hasher) { hasher.combine(words.0) }
    }

    /// Beyond this many tokens checked in one second the cache starts over:
    /// a bound on memory, not a working-set guess (a hub's callers are its
    /// users' scripts and phones).
    static let capacity = 4096

    private let entries = Mutex<[Digest: KeptCaller]>([:])

    /// What one thread took from a cache in one second. The event loops
    /// look the same token up on every request; with only the shared map,
    /// both loops take its lock each time, and under load it is contended
    /// (`Mutex._lockSlow` was 0.7 % of a loop thread on `/api/me`). A
    /// thread's copy is checked exactly like the shared map's entries, and
    /// holds only entries the shared map gave it in the same second. Only
    /// its own thread touches it, and no access to a field overlaps another,
    /// so the runtime's exclusivity check is off for its fields.
    private final class ThreadCopy {
        /// Strong, so no later cache can reuse the address and read a
        /// previous cache's entries as its own.
        @exclusivity(unchecked) var owner: CredentialCache?
        @exclusivity(unchecked) var second: Int64 = .min
        @exclusivity(unchecked) var entries: [Digest: KeptCaller] = [:]
    }

    private static let threadCopies = ThreadLocal { ThreadCopy() }

    func caller(for digest: Digest, generation: UInt64, now: Int64) -> KeptCaller? {
        let copy = Self.threadCopies.value
        if copy.owner === self && copy.second == now, let kept = copy.entries[digest], kept.generation == generation {
            return kept
        }
        guard let kept = entries.withLock({ $0[digest] }),
              kept.generation == generation, kept.checkedAt == now else { return nil }
        if copy.owner !== self || copy.second != now || copy.entries.count >= Self.capacity {
            // Everything from an earlier second (or another cache) is stale.
            copy.owner = self
            copy.second = now
            copy.entries.removeAll(keepingCapacity: true)
        }
        copy.entries[digest] = kept
        return kept
    }

    /// `generation` must have been read before the database read that
    /// produced `principal`, so a change committed in between leaves it stale.
    func keep(_ principal: Principal, for digest: Digest, generation: UInt64, now: Int64) {
        var user = principal.user
        user.passwordHash = nil
        user.totpSecret = nil
        let kept = Principal(user: user, role: principal.role, scope: principal.scope, credential: principal.credential)
        let entry = KeptCaller(principal: kept, generation: generation, checkedAt: now)
        entries.withLock { map in
            if map.count >= Self.capacity {
                map = map.filter { $0.value.checkedAt == now && $0.value.generation == generation }
                if map.count >= Self.capacity { map.removeAll(keepingCapacity: true) }
            }
            map[digest] = entry
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
