import Core
import Monitoring
import Store
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// bench/storage.sh's work: seeds a day of 60 s results for a fleet through
// the Store code, measures what a row costs, runs the real retention passes
// while a probe thread writes one small result every 5 ms (its longest wait
// is what a check result waits behind retention), and extrapolates to
// 500,000 monitors. Prints `BENCH key=value` lines.
//   StorageBench --url sqlite:/tmp/x.db --monitors 5000 --hours 24 --sample-minutes 10

struct Options {
    var url = ""
    var monitors = 5_000
    var hours = 24
    var sampleMinutes: Int64 = 10
    var engine = "sqlite"
}

func parse() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst()
    while let a = args.popFirst() {
        guard let v = args.popFirst() else { fatalError("\(a) needs a value") }
        switch a {
        case "--url": o.url = v
        case "--monitors": o.monitors = Int(v) ?? o.monitors
        case "--hours": o.hours = Int(v) ?? o.hours
        case "--sample-minutes": o.sampleMinutes = Int64(v) ?? o.sampleMinutes
        case "--engine": o.engine = v
        default: fatalError("unknown option \(a)")
        }
    }
    return o
}

/// Deterministic xorshift, so every run seeds the same fleet.
struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return state
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// One monitor's behaviour: HTTP or TCP, its usual latency, and outages.
/// About 3% of monitors have one outage (2–30 min) in the day, and one
/// check in 1,000 is a lone slow (degraded) or failed result: roughly what
/// a fleet of public-site monitors shows.
struct Fleet {
    var rng = Random(state: 0x9E37_79B9_7F4A_7C15)
    var baseLatency: [Int64] = []
    var http: [Bool] = []
    var outageStart: [Int64] = []
    var outageEnd: [Int64] = []

    init(monitors: Int, from: Int64, seconds: Int64) {
        for _ in 0..<monitors {
            baseLatency.append(Int64(15 + rng.below(250)))
            http.append(rng.below(10) < 7)
            if rng.below(100) < 3 {
                let start = from + Int64(rng.below(Int(seconds)))
                outageStart.append(start)
                outageEnd.append(start + Int64(120 + rng.below(1680)))
            } else {
                outageStart.append(0)
                outageEnd.append(0)
            }
        }
    }

    mutating func result(monitor i: Int, id: Int64, at: Int64) -> CheckResultRecord {
        let jitter = Int64(rng.below(40))
        let roll = rng.below(1000)
        let down = (at >= outageStart[i] && at < outageEnd[i]) || roll == 0
        if down {
            return CheckResultRecord(monitorID: id, atMs: at * 1000 + Int64(rng.below(900)), location: "hub", status: "down",
                                     latencyMs: nil, statusCode: http[i] ? 503 : nil,
                                     error: http[i] ? "HTTP 503 Service Unavailable" : "connection refused", inMaintenance: false)
        }
        let degraded = roll == 1
        return CheckResultRecord(monitorID: id, atMs: at * 1000 + Int64(rng.below(900)), location: "hub",
                                 status: degraded ? "degraded" : "up", latencyMs: baseLatency[i] + jitter + (degraded ? 2_500 : 0),
                                 statusCode: http[i] ? 200 : nil, error: degraded ? "slow response (2.6 s > 2 s)" : nil,
                                 inMaintenance: false)
    }
}

func seconds(_ nanos: UInt64) -> Double { Double(nanos) / 1e9 }
func fmt(_ x: Double, _ digits: Int = 1) -> String {
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    return String((x * p).rounded() / p)
}

/// Writes one small result every 5 ms and keeps the longest wait.
final class Probe: Sendable {
    let maxWaitMs = Mutex(0.0)
    let writes = Atomic<Int>(0)
    let stopping = Atomic<Bool>(false)
    let handle = Mutex<ThreadHandle?>(nil)

    func start(_ db: Database, monitorID: Int64, at: Int64) {
        let h = startThread(name: "probe") { [self] in
            var n: Int64 = 0
            while !stopping.load(ordering: .relaxed) {
                let t0 = Time.monotonicNanos()
                do {
                    try db.write { c in
                        try CheckResults.insert(c, CheckResultRecord(monitorID: monitorID, atMs: at * 1000 + n, location: "probe",
                                                                     status: "up", latencyMs: 10, statusCode: nil, error: nil,
                                                                     inMaintenance: false))
                    }
                } catch { print("probe: \(error)") }
                n += 1
                let ms = Double(Time.monotonicNanos() - t0) / 1e6
                maxWaitMs.withLock { $0 = max($0, ms) }
                writes.add(1, ordering: .relaxed)
                usleep(5_000)
            }
        }
        handle.withLock { $0 = h }
    }

    func stop() -> (maxMs: Double, writes: Int) {
        stopping.store(true, ordering: .relaxed)
        handle.withLock { $0 }?.join()
        return (maxWaitMs.withLock { $0 }, writes.load(ordering: .relaxed))
    }
}

let o = parse()
let db = try Database(url: try DatabaseURL(o.url), readers: 2)
let hour: Int64 = 3600, day: Int64 = 86_400
// The seeded hours end at a midnight (UTC), so the second pass also closes the day.
let dayStart = (Time.now() / day - 2) * day
let seedFrom = dayStart - Int64(o.hours) * hour
var ids: [Int64] = []
try db.write { c in
    for i in 0..<o.monitors {
        ids.append(try Monitors.insert(c, MonitorRecord(name: "m\(i)", type: "http", target: "https://example.com/\(i)", interval: 60,
                                                        timeout: 10, retries: 0), now: seedFrom).id)
    }
}
let probeMonitor = try db.write { try Monitors.insert($0, MonitorRecord(name: "probe", type: "tcp", target: "127.0.0.1:9", interval: 60,
                                                                        timeout: 10, retries: 0), now: dayStart + 2 * hour).id }
// Seed in the order results arrive (every monitor's minute t, then t + 60).
var fleet = Fleet(monitors: o.monitors, from: seedFrom, seconds: Int64(o.hours) * hour)
let seedStart = Time.monotonicNanos()
var batch: [CheckResultRecord] = []
batch.reserveCapacity(20_000)
var seeded = 0
for minute in 0..<(o.hours * 60) {
    let at = seedFrom + Int64(minute) * 60
    for (i, id) in ids.enumerated() {
        batch.append(fleet.result(monitor: i, id: id, at: at))
        if batch.count == 20_000 {
            let rows = batch
            try db.write { try CheckResults.insertMany($0, rows) }
            seeded += rows.count
            batch.removeAll(keepingCapacity: true)
        }
    }
}
if !batch.isEmpty { let rows = batch; try db.write { try CheckResults.insertMany($0, rows) }; seeded += rows.count }
let seedSeconds = seconds(Time.monotonicNanos() - seedStart)

struct Sizes {
    var raw: Int64 = 0, rawRows: Int64 = 0
    /// `result_rollups`: the daily roll-ups (hourly ones are in `rollup_days` since 0032).
    var daily: Int64 = 0, dailyRows: Int64 = 0
    /// `rollup_days`: as left (PostgreSQL: with the row versions its updates
    /// left dead), and its live rows alone, written afresh in day order.
    var hourly: Int64 = 0, hourlyLive: Int64 = 0, hours: Int64 = 0, days: Int64 = 0
}

func sizes(live: Bool = false) throws -> Sizes {
    try db.write { c in
        var s = Sizes()
        s.raw = try StorageSize.tableBytes(c, table: "check_results")
        s.rawRows = try StorageSize.rowCount(c, table: "check_results")
        s.daily = try StorageSize.tableBytes(c, table: "result_rollups")
        s.dailyRows = try StorageSize.rowCount(c, table: "result_rollups")
        s.hourly = try StorageSize.tableBytes(c, table: "rollup_days")
        s.hourlyLive = live ? try StorageSize.rewrittenBytes(c, table: "rollup_days", order: "day_start, monitor_id") : s.hourly
        s.days = try StorageSize.rowCount(c, table: "rollup_days")
        s.hours = Int64(try CheckResults.rollupsAll(c, resolution: 3600, from: Int64.min, to: Int64.max).count)
        return s
    }
}

let before = try sizes()
let bytesPerRow = Double(before.raw) / Double(before.rawRows)
print("BENCH storage engine=\(o.engine) monitors=\(o.monitors) hours=\(o.hours) seeded_rows=\(seeded) seed_s=\(fmt(seedSeconds)) "
      + "raw_bytes=\(before.raw) bytes_per_row=\(fmt(bytesPerRow))")

var settings = RetentionSettings()
settings.rawSampleMinutes = o.sampleMinutes
let job = RetentionJob(database: db, settings: settings)
var passes: [(RetentionPassStats, Double, Int)] = []
// Pass 1 catches up every seeded hour but the last; pass 2 is an ordinary
// hourly pass: one hour of every monitor rolled up and thinned, the day
// closed, the prune.
for now in [dayStart, dayStart + hour] {
    let probe = Probe()
    probe.start(db, monitorID: probeMonitor, at: dayStart + 2 * hour + now - dayStart)
    try job.run(now: now)
    let (wait, writes) = probe.stop()
    let s = job.lastPass ?? RetentionPassStats()
    passes.append((s, wait, writes))
    print("BENCH retention engine=\(o.engine) pass=\(passes.count) monitor_hours=\(s.hoursRolledUp) thinned=\(s.rawThinned) "
          + "transactions=\(s.transactions) duration_s=\(fmt(s.durationMs / 1000, 2)) max_tx_ms=\(fmt(s.maxTransactionMs)) "
          + "probe_writes=\(writes) probe_max_wait_ms=\(fmt(wait))")
}
let after = try sizes(live: true)
let probeRows = Int64(passes.reduce(0) { $0 + $1.2 })
let kept = after.rawRows - probeRows
let keptFraction = Double(kept) / Double(before.rawRows)
// Hourly roll-ups are a day to a row (rollup_days): bytes per hour stored.
let hourlyBytes = Double(after.hourlyLive) / Double(max(1, after.hours))
let hourlyBytesAsLeft = Double(after.hourly) / Double(max(1, after.hours))
let dailyBytes = Double(after.daily) / Double(max(1, after.dailyRows))
print("BENCH thinned engine=\(o.engine) sample_minutes=\(o.sampleMinutes) rows_before=\(before.rawRows) rows_kept=\(kept) "
      + "kept_pct=\(fmt(keptFraction * 100, 2)) raw_bytes_after=\(after.raw) hourly_rollups=\(after.hours) "
      + "hourly_rollup_days=\(after.days) daily_rollups=\(after.dailyRows) hourly_bytes=\(after.hourly) "
      + "hourly_bytes_live=\(after.hourlyLive) daily_bytes=\(after.daily) bytes_per_hourly_rollup=\(fmt(hourlyBytes)) "
      + "bytes_per_hourly_rollup_as_left=\(fmt(hourlyBytesAsLeft)) bytes_per_daily_rollup=\(fmt(dailyBytes))")

// 500,000 monitors every 60 s.
let fleetRowsPerDay = 500_000.0 * 1440
let gb = 1e9
let rawDay = fleetRowsPerDay * bytesPerRow / gb
let hourlyDay = 500_000.0 * 24 * hourlyBytes / gb
let dailyDay = 500_000.0 * dailyBytes / gb
// Hourly roll-ups go a whole day at a time: 100 days of retention keep up
// to 101 days of rows.
let hourlyDaysKept = 101.0
let today = 7 * rawDay + hourlyDaysKept * hourlyDay + 800 * dailyDay
let thinnedRaw = rawDay * keptFraction
let thinned = 7 * thinnedRaw + hourlyDaysKept * hourlyDay + 800 * dailyDay
let yearThinned = 7 * thinnedRaw + hourlyDaysKept * hourlyDay + 365 * dailyDay
let yearAsLeft = yearThinned + hourlyDaysKept * 500_000.0 * 24 * (hourlyBytesAsLeft - hourlyBytes) / gb
let pass2 = passes[1].0
let hourlyPassS = pass2.durationMs / 1000 * 500_000 / Double(o.monitors)
print("BENCH fleet500k engine=\(o.engine) rows_per_day=\(Int(fleetRowsPerDay)) raw_gb_per_day=\(fmt(rawDay, 2)) "
      + "hourly_rollup_gb_per_day=\(fmt(hourlyDay, 2)) daily_rollup_gb_per_day=\(fmt(dailyDay, 3)) "
      + "today_growth_gb_per_day=\(fmt(rawDay + hourlyDay + dailyDay, 1)) today_steady_gb=\(fmt(today, 0)) "
      + "thinned_raw_gb_per_day=\(fmt(thinnedRaw, 2)) thinned_steady_gb=\(fmt(thinned, 0)) year_gb=\(fmt(yearThinned, 0)) "
      + "year_gb_hourly_as_left=\(fmt(yearAsLeft, 0)) hourly_pass_s=\(fmt(hourlyPassS, 0))")
db.close()
