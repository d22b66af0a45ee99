/// Exponential backoff with jitter for talking to the hub: 0.5 s, 1 s, 2 s …
/// up to `maxMillis`; reset after a success. Jitter (±20%) keeps many agents
/// that lost the hub at the same moment from retrying in lockstep.
struct Backoff {
    var baseMillis = 500
    var maxMillis = 30_000
    private(set) var failures = 0

    init(baseMillis: Int = 500, maxMillis: Int = 30_000) {
        self.baseMillis = baseMillis
        self.maxMillis = maxMillis
    }

    /// Records a failure and returns how long to wait before the next try.
    mutating func next() -> Int {
        failures += 1
        let exponent = min(failures - 1, 20)
        let plain = min(maxMillis, baseMillis << exponent)
        let jitter = plain / 5
        return max(1, plain + (jitter > 0 ? Int.random(in: -jitter...jitter) : 0))
    }

    mutating func reset() { failures = 0 }
}
