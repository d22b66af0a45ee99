import CLinux
import Core

extension ClientEngine {
    /// Sends `count` ICMP echo requests to `host` (a name or an IPv4/IPv6
    /// address; a name uses its first address) and reports the round trips.
    /// The completion runs on a ping or resolver thread within
    /// `timeoutMillis` of the call, name resolution included (except a
    /// resolution that itself hangs, which the resolver bounds).
    public func ping(host: String, count: Int, timeoutMillis: Int, completion: @escaping @Sendable (PingResult) -> Void) {
        let deadline = Time.monotonicNanos() + UInt64(max(1, timeoutMillis)) * 1_000_000
        let pool = pingPool
        let run: @Sendable (IPAddress) -> Void = { address in
            pool.submit { completion(EchoExchange.run(to: address, count: count, deadline: deadline)) }
        }
        if let literal = IPAddress(literal: host) { return run(literal) }
        resolver.lookup(host) { answer in
            var failed = PingResult()
            switch answer {
            case .success(let addresses):
                guard let first = addresses.first else {
                    failed.failure = .resolve("DNS: no address for \(host)")
                    return completion(failed)
                }
                guard Time.monotonicNanos() < deadline else {
                    failed.failure = .timeout
                    return completion(failed)
                }
                run(first)
            case .failure(let f):
                failed.failure = .resolve(f.describe(timeoutMillis: timeoutMillis))
                completion(failed)
            }
        }
    }

    /// Blocking form (check now, tests).
    public func ping(host: String, count: Int, timeoutMillis: Int) -> PingResult {
        let done = Semaphore()
        let box = Handoff<PingResult>()
        ping(host: host, count: count, timeoutMillis: timeoutMillis) { r in
            box.put(r)
            done.post()
        }
        done.wait()
        return box.take()!
    }
}
