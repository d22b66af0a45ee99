import Core
import Synchronization

/// Notifications settled by this hub since it started, per channel type and
/// result: the `pingtxt_notifications_total` counter family. Kept in memory
/// because a Prometheus counter only grows (a restart resets it, which
/// `rate()` expects), while the outbox rows it could be counted from are
/// pruned after the retention period and would make it shrink.
public final class DeliveryCounters: Sendable {
    private let counts = Mutex<[String: (sent: Int, failed: Int)]>([:])

    public init() {}

    /// A retry is not counted: only the final word on a notification is.
    func record(channelType: String, sent: Bool) {
        counts.withLock { map in
            var c = map[channelType] ?? (0, 0)
            if sent { c.sent += 1 } else { c.failed += 1 }
            map[channelType] = c
        }
    }

    /// The family, with every channel type listed (zeros included) so a
    /// dashboard sees the series before the first notification.
    public func render(into out: inout PrometheusText) {
        let snapshot = counts.withLock { $0 }
        out.family("pingtxt_notifications_total", .counter,
                   help: "Notifications settled since the hub started, by channel type and result (sent or failed).")
        let types = Set(ChannelType.allCases.map(\.rawValue)).union(snapshot.keys).sorted()
        for type in types {
            let c = snapshot[type] ?? (0, 0)
            out.sample("pingtxt_notifications_total", ["channel_type": type, "result": "sent"], c.sent)
            out.sample("pingtxt_notifications_total", ["channel_type": type, "result": "failed"], c.failed)
        }
    }
}
