import Auth
import Core
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The time of one `PasswordHasher.hash` (docs/security.md quotes it).
/// Opt-in, since it only measures: `PINGTXT_BENCH=1 swift test -c release
/// --filter PasswordHashTiming`.
@Suite struct PasswordHashTimingTests {
    @Test(.enabled(if: getenv("PINGTXT_BENCH") != nil))
    func oneHash() throws {
        var samples: [Double] = []
        for _ in 0..<7 {
            let start = Time.monotonicNanos()
            _ = try PasswordHasher.hash("correct horse battery staple")
            samples.append(Double(Time.monotonicNanos() - start) / 1e6)
        }
        samples.sort()
        print("PasswordHasher.hash: median \(samples[3]) ms, min \(samples[0]) ms, max \(samples[6]) ms")
        #expect(samples[3] > 10)
    }
}
