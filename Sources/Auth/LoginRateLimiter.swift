import Core
import Synchronization

/// Failed sign-in attempts counted in memory, per account and per client
/// address, over a sliding window. Per account stops guessing one password
/// from many addresses; per address stops one address trying many accounts.
/// In memory on purpose: a restart forgets the counts, which costs an
/// attacker a restart they cannot cause, and no write happens per attempt.
///
/// The account's failures are kept per factor. A right password clears only
/// the password's: whoever knows the password could otherwise clear the
/// wrong TOTP codes (or refused phone approvals) by signing in again and
/// guess the second factor without limit. Either factor's list reaching
/// the limit blocks the account, so wrong codes count across every pending
/// login of that account.
public final class LoginRateLimiter: Sendable {
    /// What a failure or success was about.
    public enum Factor: Sendable {
        /// The password (login form, password change).
        case password
        /// The second factor: a TOTP or recovery code, or a phone approval.
        case secondFactor

        var prefix: String {
            switch self {
            case .password: "a:"
            case .secondFactor: "f:"
            }
        }
    }

    public struct Limits: Sendable {
        public var perAccount: Int
        public var perAddress: Int
        public var window: Int64
        public init(perAccount: Int = 5, perAddress: Int = 20, window: Int64 = 15 * 60) {
            self.perAccount = perAccount
            self.perAddress = perAddress
            self.window = window
        }
    }

    public let limits: Limits
    private let clock: @Sendable () -> Int64
    /// Key ("a:"/"f:" + lowercased email, per factor, or "c:" + address) →
    /// failure times, oldest first.
    private let failures = Mutex<[String: [Int64]]>([:])
    /// Above this many keys, expired entries are swept on the next failure,
    /// so a flood of distinct addresses cannot grow memory without bound.
    private static let sweepThreshold = 10_000

    public init(limits: Limits = Limits(), clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.limits = limits
        self.clock = clock
    }

    /// Seconds to wait before trying again, or nil when an attempt may go ahead.
    /// Asked before the password is hashed, so a blocked attempt costs no scrypt.
    public func retryAfter(account: String, address: String) -> Int64? {
        let now = clock()
        return failures.withLock { map in
            let name = account.lowercased()
            let waits = [wait(map[Factor.password.prefix + name], limit: limits.perAccount, now: now),
                         wait(map[Factor.secondFactor.prefix + name], limit: limits.perAccount, now: now),
                         wait(map["c:" + address], limit: limits.perAddress, now: now)].compactMap { $0 }
            return waits.max()
        }
    }

    public func recordFailure(account: String, address: String, factor: Factor = .password) {
        let now = clock()
        failures.withLock { map in
            if map.count > Self.sweepThreshold {
                map = map.filter { $0.value.last.map { now - $0 < limits.window } ?? false }
            }
            for (key, limit) in [(factor.prefix + account.lowercased(), limits.perAccount), ("c:" + address, limits.perAddress)] {
                var times = (map[key] ?? []).filter { now - $0 < limits.window }
                times.append(now)
                // Only the newest `limit` matter for the answer.
                if times.count > limit { times.removeFirst(times.count - limit) }
                map[key] = times
            }
        }
    }

    /// A success clears the account's count for that factor, and a second
    /// factor's success (the whole sign-in done) the password's as well;
    /// never the address's: an attacker with one valid account must not
    /// reset their address budget.
    public func recordSuccess(account: String, factor: Factor = .password) {
        let name = account.lowercased()
        failures.withLock { map in
            map.removeValue(forKey: Factor.password.prefix + name)
            if factor == .secondFactor { map.removeValue(forKey: Factor.secondFactor.prefix + name) }
        }
    }

    private func wait(_ times: [Int64]?, limit: Int, now: Int64) -> Int64? {
        guard let times else { return nil }
        let recent = times.filter { now - $0 < limits.window }
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, oldest + limits.window - now)
    }
}
