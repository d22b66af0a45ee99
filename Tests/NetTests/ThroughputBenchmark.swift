import Core
import Net
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A manual throughput run, skipped unless `PINGTXT_BENCH_URL` is set:
///
///     PINGTXT_BENCH_URL=http://127.0.0.1:18080/health.json PINGTXT_BENCH_N=20000 \
///       swift test -c release --filter ThroughputBenchmark
///
/// Keeps `PINGTXT_BENCH_INFLIGHT` (default 256) requests in flight, each a
/// fresh connection like an uptime check, and prints checks per second.
@Suite struct ThroughputBenchmark {
    static func env(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    @Test func checksPerSecond() {
        guard let url = Self.env("PINGTXT_BENCH_URL") else { return }
        let total = Int(Self.env("PINGTXT_BENCH_N") ?? "") ?? 20_000
        let window = Int(Self.env("PINGTXT_BENCH_INFLIGHT") ?? "") ?? 256
        let loops = Int(Self.env("PINGTXT_BENCH_LOOPS") ?? "") ?? 1
        let timeout = Int(Self.env("PINGTXT_BENCH_TIMEOUT_MS") ?? "") ?? 10_000
        let engine = ClientEngine(loops: loops, maxConcurrent: window)
        defer { engine.shutdown() }
        let ok = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let errors = Mutex<[String: Int]>([:])
        let done = Semaphore()
        let start = Time.monotonicNanos()
        // All submitted at once: the engine's FIFO queue keeps `window` in flight.
        for _ in 0..<total {
            var request = ClientRequest(url: url)
            request.timeoutMillis = timeout
            engine.execute(request) { r in
                if r.response?.status == 200 { ok.wrappingAdd(1, ordering: .relaxed) } else {
                    errors.withLock { $0[r.errorDescription ?? "status \(r.response?.status ?? 0)", default: 0] += 1 }
                }
                if finished.wrappingAdd(1, ordering: .relaxed).newValue == total { done.post() }
            }
        }
        done.wait()
        let seconds = Double(Time.monotonicNanos() - start) / 1e9
        print("BENCH \(total) GETs, \(window) in flight, \(loops) loop(s): \(String(Int(Double(total) / seconds))) checks/s, "
              + "\(ok.load(ordering: .relaxed)) ok, errors: \(errors.withLock { $0 })")
        #expect(ok.load(ordering: .relaxed) == total)
    }
}
