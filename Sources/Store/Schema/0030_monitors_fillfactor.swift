/// Room on every `monitors` page for the next version of its rows
/// (PostgreSQL only; SQLite rewrites a row in place).
///
/// Each check result rewrites its monitor's row (`Monitors.SQL.updateLast`).
/// PostgreSQL writes a new row version; when it fits on the same page and
/// no indexed column changed, the update is HOT: no index is touched. With
/// the default fillfactor of 100 a page is packed full, so the next version
/// goes to another page and every index gets a new entry, the trigram GIN
/// index (0029) dozens of them. At 250,000 monitors that was 23 % HOT and
/// the writer fell behind (bench/scheduler.sh, bench/README.md "HOT").
///
/// 70 leaves 30 % of each page free for the new versions: 58 % of the
/// updates were HOT in the same bench, the writer kept up again. Not all:
/// a page's rows share a phase window (`SchedulePlan.phase`), so they are
/// updated in one batch, and versions the batch's own transaction made dead
/// cannot be pruned before it commits. The setting applies to pages written from
/// now on: an existing table converges as its rows move once (a check
/// cycle); `VACUUM FULL monitors` applies it at once (docs/postgres.md).
enum Schema0030 {
    static let migration = Migration(name: "0030_monitors_fillfactor", sql: "", step: { c throws(StoreError) in
        guard c.engine == .postgres else { return }
        try c.execute("ALTER TABLE monitors SET (fillfactor = 70)")
    })
}
