import CLinux
import Core
import CLinux
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Name resolution off the event loops: a few threads calling the blocking
/// `getaddrinfo`, a cache (positive `positiveTTL`, negative `negativeTTL`)
/// and single-flight (concurrent lookups of one name share one call).
/// Completions run on a resolver thread, or inline on a cache hit.
final class Resolver: Sendable {
    typealias Completion = @Sendable (Result<[IPAddress], ClientFailure>) -> Void

    private struct Entry {
        let result: Result<[IPAddress], ClientFailure>
        let expires: UInt64
    }

    private struct State {
        var cache: [String: Entry] = [:]
        var waiting: [String: [Completion]] = [:]
        var queue: [String] = []
        var head = 0
        var stopping = false
    }

    private let state = Mutex(State())
    private let work = Semaphore()
    private let threadCount: Int
    private let threads = Mutex<[ThreadHandle]>([])
    let positiveTTL: UInt64
    let negativeTTL: UInt64

    init(threads: Int = 4, positiveTTLSeconds: Int = 30, negativeTTLSeconds: Int = 5) {
        threadCount = max(1, threads)
        positiveTTL = UInt64(positiveTTLSeconds) * 1_000_000_000
        negativeTTL = UInt64(negativeTTLSeconds) * 1_000_000_000
    }

    /// Threads start on first use: an engine that only hits IP literals never
    /// starts any.
    private func startThreadsIfNeeded() {
        threads.withLock { list in
            guard list.isEmpty else { return }
            for i in 0..<threadCount {
                list.append(startThread(name: "pt-resolve-\(i)", stackSize: 256 * 1024) { [self] in workerLoop() })
            }
        }
    }

    /// A cached answer, if fresh.
    func cached(_ host: String) -> Result<[IPAddress], ClientFailure>? {
        let now = Time.monotonicNanos()
        return state.withLock { s in
            guard let e = s.cache[host], e.expires > now else { return nil }
            return e.result
        }
    }

    func lookup(_ host: String, completion: @escaping Completion) {
        let now = Time.monotonicNanos()
        enum Action { case answer(Result<[IPAddress], ClientFailure>), queued, joined, stopped }
        let action: Action = state.withLock { s in
            if s.stopping { return .stopped }
            if let e = s.cache[host], e.expires > now { return .answer(e.result) }
            if s.waiting[host] != nil {
                s.waiting[host]!.append(completion)
                return .joined
            }
            s.waiting[host] = [completion]
            s.queue.append(host)
            return .queued
        }
        switch action {
        case .answer(let r): completion(r)
        case .stopped: completion(.failure(.cancelled))
        case .joined: break
        case .queued:
            startThreadsIfNeeded()
            work.post()
        }
    }

    func shutdown() {
        let waiters: [Completion] = state.withLock { s in
            s.stopping = true
            let all = s.waiting.values.flatMap { $0 }
            s.waiting = [:]
            return all
        }
        for w in waiters { w(.failure(.cancelled)) }
        let list = threads.withLock { l in let copy = l; l = []; return copy }
        for _ in list { work.post() }
        for t in list { t.join() }
    }

    private func workerLoop() {
        while true {
            work.wait()
            let next: String?? = state.withLock { s in
                if s.stopping { return .some(nil) }
                guard s.head < s.queue.count else { return .none }
                let h = s.queue[s.head]
                s.head += 1
                if s.head > 64 && s.head * 2 > s.queue.count {
                    s.queue.removeFirst(s.head)
                    s.head = 0
                }
                return .some(h)
            }
            guard case .some(let item) = next else { continue }
            guard let host = item else { return }
            let result = Self.getaddrinfo(host)
            let expires = Time.monotonicNanos() + ((try? result.get()) != nil ? positiveTTL : negativeTTL)
            let waiters: [Completion] = state.withLock { s in
                s.cache[host] = Entry(result: result, expires: expires)
                if s.cache.count > 50_000 { s.cache = s.cache.filter { $0.value.expires > expires - positiveTTL } }
                return s.waiting.removeValue(forKey: host) ?? []
            }
            for w in waiters { w(result) }
        }
    }

    /// The blocking call, addresses in the order getaddrinfo gives them, deduplicated.
    static func getaddrinfo(_ host: String) -> Result<[IPAddress], ClientFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = Glibc.getaddrinfo(host, nil, &hints, &list)
        guard rc == 0 else {
            let text = rc == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(rc))
            return .failure(.dns(text.lowercased()))
        }
        defer { freeaddrinfo(list) }
        var out: [IPAddress] = []
        var p = list
        while let ai = p {
            if let sa = ai.pointee.ai_addr {
                var addr: IPAddress?
                switch ai.pointee.ai_family {
                case AF_INET:
                    addr = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { s in
                        var a = s.pointee.sin_addr
                        return IPAddress(bytes: withUnsafeBytes(of: &a) { Array($0) })
                    }
                case AF_INET6:
                    addr = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { s in
                        var a = s.pointee.sin6_addr
                        return IPAddress(bytes: withUnsafeBytes(of: &a) { Array($0) })
                    }
                default: break
                }
                if let addr, !out.contains(addr) { out.append(addr) }
            }
            p = ai.pointee.ai_next
        }
        return out.isEmpty ? .failure(.dns("no addresses")) : .success(out)
    }
}
