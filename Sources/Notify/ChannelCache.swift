import Core
import Store
import Synchronization

/// The channels as stored, in memory: built before the pieces that read it
/// (the notifier routes with it, the push service fans `mobile` channels
/// out to phones with it), so neither has to be completed after the other
/// is built. Every channel write reloads it in its transaction.
public final class ChannelCache: Sendable {
    private let channels = Mutex<[Channel]>([])

    public init() {}

    public var current: [Channel] { channels.withLock { $0 } }

    /// Replaces the cache; channels whose stored config no longer validates
    /// for their type are skipped (and logged). A column that is not the
    /// JSON the Store wrote fails the read itself (`StoreError` naming the
    /// row), so a damaged row is never taken for "no events, every monitor".
    public func reload(_ c: Connection) throws(StoreError) {
        let records = try Channels.all(c)
        var out: [Channel] = []
        for r in records {
            do { out.append(try Channel(record: r)) } catch {
                Log.shared.warn("channel skipped: invalid stored config", ["channel": "\(r.id)", "error": error.message])
            }
        }
        channels.withLock { $0 = out }
    }
}
