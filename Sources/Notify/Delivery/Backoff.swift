/// Retry schedule of the outbox (pure; the caller injects time and jitter).
/// Delay before attempt n+1 = min(base·2^(n-1), cap) scaled by a jitter in
/// [0.5, 1.0), but never less than the peer's `Retry-After` (itself capped
/// at `cap`). A row is given up (`failed`) once the next attempt would fall
/// more than `giveUpAfter` after the row was created.
public struct Backoff: Sendable {
    public var base: Int64 = 10
    public var cap: Int64 = 1800
    public var giveUpAfter: Int64 = 24 * 3600

    public init(base: Int64 = 10, cap: Int64 = 1800, giveUpAfter: Int64 = 24 * 3600) {
        self.base = base
        self.cap = cap
        self.giveUpAfter = giveUpAfter
    }

    /// Seconds to wait after the `attempts`-th failed attempt (1-based).
    /// `jitter` is in [0, 1).
    public func delay(afterAttempt attempts: Int64, retryAfter: Int64?, jitter: Double) -> Int64 {
        let exp = min(max(attempts - 1, 0), 30)
        let raw = min(base << exp, cap)
        let j = min(max(jitter, 0), 0.999_999)
        var d = max(1, Int64((Double(raw) * (0.5 + j / 2)).rounded(.down)))
        if let retryAfter, retryAfter > 0 { d = max(d, min(retryAfter, cap)) }
        return d
    }

    /// When to try again, or nil to give up.
    public func nextAttempt(now: Int64, createdAt: Int64, attempts: Int64, retryAfter: Int64?, jitter: Double) -> Int64? {
        let at = now + delay(afterAttempt: attempts, retryAfter: retryAfter, jitter: jitter)
        return at - createdAt > giveUpAfter ? nil : at
    }

    /// How a peer's answer is treated.
    public enum Outcome: Sendable, Equatable { case sent, retry, permanent }

    /// 2xx sent; 408, 425, 429 and 5xx retried; other statuses permanent.
    public static func classify(status: Int) -> Outcome {
        switch status {
        case 200..<300: .sent
        case 408, 425, 429, 500..<600: .retry
        default: .permanent
        }
    }

    /// `Retry-After` as delta-seconds (HTTP dates are not honoured: treated as absent).
    public static func parseRetryAfter(_ value: String?) -> Int64? {
        guard let v = value?.trimmingSpaces(), !v.isEmpty, v.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), v.count <= 9 else { return nil }
        return Int64(v)
    }
}
