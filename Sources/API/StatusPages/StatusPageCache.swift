import Core
import HTTP

/// Rendered public status pages, kept a few seconds (`[status_pages]
/// cache_seconds`, docs/web.md). A status page is read hardest exactly
/// when something is down, by visitors who all see the same answer, and a
/// 1,000-monitor page costs about 80 ms of CPU to build (bench/README.md):
/// without this, a few dozen visitors a second would occupy every worker.
///
/// - One build per key at a time: a request that finds another building
///   the same key waits for it, or, when a copy younger than `sweepAfter`
///   exists, gets that copy at once (as nginx's `proxy_cache_use_stale
///   updating` does).
/// - Failures are not kept: the next request builds again.
/// - Hits carry `Age` (RFC 9111 §5.1), so a shared cache downstream
///   counts its `max-age` from when the page was built, not served.
/// - Each copy remembers the `version` it was built from (the hash of the
///   page's stored row), and a copy of another version is never served:
///   editing a page shows at once on every hub, even within one second
///   (`updated_at` has whole seconds). Monitor states show within the
///   lifetime.
///
/// Entries are the handful of pages people look at; one that has not been
/// asked for over `sweepAfter` is dropped at the next build.
final class StatusPageCache: @unchecked Sendable {
    struct Entry {
        var response: HTTPResponse
        var version: Int
        var builtAt: UInt64
    }

    /// Nanoseconds a built page is served; 0 builds every request.
    private let lifetime: UInt64
    private let sweepAfter: UInt64
    private let clock: @Sendable () -> UInt64
    // Guarded by `condition`'s lock: `entries`, `building`.
    private let condition = Condition()
    private var entries: [String: Entry] = [:]
    private var building: Set<String> = []

    /// `clock` gives monotonic nanoseconds (injected so tests step it).
    init(lifetimeSeconds: Int, clock: @escaping @Sendable () -> UInt64 = { Time.monotonicNanos() }) {
        lifetime = UInt64(max(0, lifetimeSeconds)) * 1_000_000_000
        sweepAfter = max(lifetime * 6, 60_000_000_000)
        self.clock = clock
    }

    /// Keys in memory (for tests).
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return entries.count
    }

    /// The kept response for `key` while it is fresh and of `version`;
    /// otherwise `build()`'s, kept when it succeeds.
    func response(for key: String, version: Int, build: () throws -> HTTPResponse) throws -> HTTPResponse {
        guard lifetime > 0 else { return try build() }
        condition.lock()
        while true {
            let now = clock()
            let busy = building.contains(key)
            if let e = entries[key], e.version == version, now &- e.builtAt < (busy ? sweepAfter : lifetime) {
                condition.unlock()
                return Self.aged(e, now: now)
            }
            guard busy else { break }
            condition.wait()
        }
        building.insert(key)
        condition.unlock()
        do {
            let built = try build()
            condition.lock()
            let now = clock()
            entries = entries.filter { now &- $0.value.builtAt < sweepAfter }
            entries[key] = Entry(response: built, version: version, builtAt: now)
            building.remove(key)
            condition.broadcast()
            condition.unlock()
            return built
        } catch {
            condition.lock()
            building.remove(key)
            condition.broadcast()
            condition.unlock()
            throw error
        }
    }

    private static func aged(_ e: Entry, now: UInt64) -> HTTPResponse {
        var r = e.response
        r.headers.set("Age", String((now &- e.builtAt) / 1_000_000_000))
        return r
    }
}
