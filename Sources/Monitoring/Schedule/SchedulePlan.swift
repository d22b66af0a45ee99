import Core

/// Pure arithmetic of when checks run. All times are Unix milliseconds.
///
/// Every monitor runs on a fixed grid: `phase(id) + k × interval`. The phase
/// comes from the id alone, so a restart keeps each monitor on the same grid,
/// and monitors with the same interval are spread over it instead of all
/// firing together (in runs of consecutive ids on large hubs, see `phase`).
public enum SchedulePlan {
    /// A deterministic offset in `[0, intervalMs)` from the id.
    ///
    /// Ids below `soloIDs` (a hub's first 4,095 monitors) each get their
    /// own phase by Fibonacci hashing: the id times 2^64/φ, read as a
    /// fraction of the interval. For consecutive ids (database rowids) this
    /// is the golden-ratio low-discrepancy sequence: by the three-gap theorem
    /// the phases of n consecutive ids split the interval into gaps of at
    /// most three lengths, the largest under 2.7 × interval / n, so the
    /// spread stays even as monitors are added. (A random-looking hash such
    /// as splitmix64 would leave gaps of about ln(n) × interval / n.)
    ///
    /// From `soloIDs` on, ids go in runs of `runLength` consecutive ids: the
    /// run gets a golden-ratio phase of its own (of the negated run number,
    /// so runs do not land on the solo ids' phases), and its members follow
    /// each other `interval / 65,536` apart (57 ms for a whole run at 60 s).
    /// Why: each check result rewrites its monitor's row and an index leaf
    /// of `check_results (monitor_id, at_ms)`; consecutive ids share those
    /// pages, so a group commit of checks that ran together writes about a
    /// tenth of the pages it writes when every check lands on a page of its
    /// own (measured in docs/monitoring.md "Scheduling": 2.03 → 0.22 WAL
    /// pages per result at 250,000 monitors). Below 4,096 monitors every
    /// page is in cache and spreading each check alone keeps measurement
    /// quiet; above, runs still spread evenly over the interval.
    public static func phase(id: Int64, intervalMs: Int64) -> Int64 {
        precondition(intervalMs > 0, "interval must be positive")
        guard id >= soloIDs else { return golden(id, intervalMs: intervalMs) }
        let member = id % runLength
        let offset = Int64((UInt64(member) * UInt64(intervalMs)) >> 16)
        return (golden(-(id / runLength), intervalMs: intervalMs) + offset) % intervalMs
    }

    /// Ids with a phase each; from here on, runs of `runLength`.
    public static let soloIDs: Int64 = 4096
    public static let runLength: Int64 = 64

    /// `x` times 2^64/φ as a fraction of the interval, in `[0, intervalMs)`.
    static func golden(_ x: Int64, intervalMs: Int64) -> Int64 {
        let h = UInt64(bitPattern: x) &* 0x9E37_79B9_7F4A_7C15
        return Int64(h.multipliedFullWidth(by: UInt64(intervalMs)).high)
    }

    /// The first slot of `id`'s grid at or after `t`.
    public static func slot(atOrAfter t: Int64, id: Int64, intervalMs: Int64) -> Int64 {
        let p = phase(id: id, intervalMs: intervalMs)
        let k = ScheduleCalendar.floorDiv(t - p, intervalMs)
        let s = p + k * intervalMs
        return s >= t ? s : s + intervalMs
    }

    /// When a monitor (newly loaded, or after a restart) first runs. A stored
    /// next-due in the future (and no further than one interval away) is
    /// kept; otherwise — never run, due during downtime, or an implausible
    /// far-future value after an interval change — the next grid slot at or
    /// after `now`: no burst of catch-up checks after downtime.
    ///
    /// A new monitor can therefore wait up to one interval for its first
    /// check; callers that want an immediate first check use
    /// `Scheduler.runNow(id:)`.
    public static func firstDue(id: Int64, intervalMs: Int64, now: Int64, storedNextDue: Int64?) -> Int64 {
        if let stored = storedNextDue, stored > now, stored <= now + intervalMs { return stored }
        return slot(atOrAfter: now, id: id, intervalMs: intervalMs)
    }

    /// The slot after `previousDue`: `previousDue + interval`, independent of
    /// when the check ran or how long it took (no drift). If that is already
    /// in the past (the scheduler fell behind, or a check overran), the next
    /// grid slot at or after `now`: missed runs are skipped, not piled up.
    public static func nextDue(previousDue: Int64, intervalMs: Int64, now: Int64) -> Int64 {
        let next = previousDue + intervalMs
        if next >= now { return next }
        // Same grid as previousDue (whatever its phase), first slot >= now.
        let behind = now - next
        let steps = (behind + intervalMs - 1) / intervalMs
        return next + steps * intervalMs
    }

    /// How many slots `nextDue` skipped (0 when on time).
    public static func skippedSlots(previousDue: Int64, intervalMs: Int64, next: Int64) -> Int64 {
        max(0, (next - previousDue) / intervalMs - 1)
    }
}
