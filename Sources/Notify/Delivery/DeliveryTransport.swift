import Core
import Store

/// The verdict of one delivery attempt, whatever carried it.
public enum AttemptVerdict: Sendable, Equatable {
    case sent
    /// Worth retrying (network error, 5xx, 429, SMTP 4xx); `retryAfter` is
    /// the peer's wish in seconds.
    case temporary(error: String, retryAfter: Int64?)
    /// Retrying cannot help (4xx, SMTP 5xx, a push token the platform refused).
    case permanent(error: String)

    /// An HTTP answer (`status`) or a network failure (`failure`).
    public static func http(status: Int?, retryAfter: String?, failure: String?) -> AttemptVerdict {
        guard let status else { return .temporary(error: failure ?? "network error", retryAfter: nil) }
        switch Backoff.classify(status: status) {
        case .sent: return .sent
        case .permanent: return .permanent(error: "HTTP \(status)")
        case .retry: return .temporary(error: "HTTP \(status)", retryAfter: Backoff.parseRetryAfter(retryAfter))
        }
    }
}

/// Carries claimed outbox rows of one `transport` value to their peers. The
/// worker hands each transport its rows of one claim at once (so the push
/// relay can batch them) and waits until `report` was called once per row.
public protocol DeliveryTransport: Sendable {
    /// The `outbox.transport` value this transport delivers.
    var name: String { get }
    /// Sends `rows`; calls `report` exactly once per row, from any thread.
    func deliver(_ rows: [OutboxRecord], report: @escaping @Sendable (_ rowID: Int64, _ verdict: AttemptVerdict) -> Void)
}
