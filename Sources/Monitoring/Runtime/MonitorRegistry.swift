import Synchronization

/// The configurations of every monitor, in memory, so the scheduler's hot
/// path and ping ingest never query the database to learn what to do.
/// The database stays the truth: this is rebuilt from it at start-up and
/// updated by every write that goes through `MonitoringService`.
final class MonitorRegistry: Sendable {
    struct Entry: Sendable {
        /// Boxed: an entry is copied out for every check and every ping,
        /// and a bare `MonitorConfig` copy retains each string and array in
        /// it (and a ping needed a box of its own besides).
        private(set) var boxed: ConfigBox
        var createdAt: Int64
        var pingKey: String?

        init(config: MonitorConfig, createdAt: Int64, pingKey: String?) {
            boxed = ConfigBox(config)
            (self.createdAt, self.pingKey) = (createdAt, pingKey)
        }

        var config: MonitorConfig {
            get { boxed.value }
            set { boxed = ConfigBox(newValue) }
        }
    }

    private struct State {
        var byID: [Int64: Entry] = [:]
        var byPingKey: [String: Int64] = [:]
        var version = 0
    }

    private let state = Mutex(State())

    func set(_ id: Int64, _ entry: Entry) {
        state.withLock { s in
            if let old = s.byID[id]?.pingKey { s.byPingKey[old] = nil }
            s.byID[id] = entry
            if let key = entry.pingKey { s.byPingKey[key] = id }
            s.version += 1
        }
    }

    func remove(_ id: Int64) {
        state.withLock { s in
            if let key = s.byID.removeValue(forKey: id)?.pingKey { s.byPingKey[key] = nil }
            s.version += 1
        }
    }

    func get(_ id: Int64) -> Entry? { state.withLock { $0.byID[id] } }

    func id(forPingKey key: String) -> Int64? { state.withLock { $0.byPingKey[key] } }

    func all() -> [(Int64, Entry)] { state.withLock { s in s.byID.map { ($0.key, $0.value) } } }

    var count: Int { state.withLock { $0.byID.count } }

    /// Moves with every `set` and `remove`: what is derived from the
    /// monitors' configurations (tag counts) is still right while it has not
    /// moved. Every configuration write reaches the registry after its
    /// commit, on this hub directly and from other hubs at the cluster beat.
    var version: Int { state.withLock { $0.version } }
}
