import Store

/// Which raw results of a rolled-up hour are kept (docs/storage.md). The
/// hour's roll-up is exact (computed from every result before any goes), so
/// raw rows are only what the results list, the latency chart and the
/// dashboard's sparklines show. Kept, per location of the monitor:
/// - every result that is not `up` (each failure stays visible with its error);
/// - every result whose status differs from the previous result (the
///   recovery after an outage, the first result after a gap);
/// - the first result of each `sampleMinutes` slice of the hour (slices start
///   at the hour, so the first result of an hour is always kept).
/// Everything else (an `up` following an `up` inside a slice) is deleted.
///
/// The rule only looks inside the hour, and applied to its own output it
/// keeps everything: a deleted row is an `up` whose predecessor was `up`, so
/// every kept row's nearest kept predecessor has the status its predecessor
/// had, and the first row of a slice stays first. A second pass deletes nothing.
public enum RawThinning {
    /// Ids to delete from `rows` (one monitor's results of the hour starting
    /// at `hourStart`, oldest first); none when `sampleMinutes` ≤ 0 (thinning off).
    public static func deletable(_ rows: [ResultStatusRow], hourStart: Int64, sampleMinutes: Int64) -> [Int64] {
        guard sampleMinutes > 0 else { return [] }
        let slice = sampleMinutes * 60_000
        var previous: [String: (status: String, slice: Int64)] = [:]
        var out: [Int64] = []
        for r in rows {
            let s = (r.atMs - hourStart * 1000) / slice
            let before = previous[r.location]
            previous[r.location] = (r.status, s)
            guard let before, r.status == "up", before.status == "up", before.slice == s else { continue }
            out.append(r.id)
        }
        return out
    }
}
