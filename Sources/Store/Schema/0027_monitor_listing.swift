/// What keeps the monitor lists fast at 500,000 monitors (issue 20,
/// bench/pages.sh):
///
/// - `monitors.search`: `lower(name) || '\n' || lower(target)`, set
///   by `Monitors.insert` / `updateConfig` (`MonitorListing.searchOfParameters`)
///   with the same SQL `lower()` the query applies to the term, so `?q=` is one `instr` on a narrow column
///   instead of two `lower()` calls on every row.
/// - `monitors_worst_first`: the dashboard's order (status rank, then name
///   without case, then id) with `search` at the end, so a page is one
///   index range per status band and a search is checked on index entries,
///   reading a monitor's row only when it matches (SQLite's deferred seek).
///   The rank expression is `MonitorListing.rankSQL`, written the same way
///   in the query: both engines match an expression index only on the
///   same expression.
/// - `monitors_id_search`: `(id, search)`, the API's id order with the
///   search column, a tenth of the table's width: a search with few
///   matches walks it instead of every row of the table.
///
/// Neither index contains a column the result path writes except `status`
/// (already indexed by `monitors_status`), so recording a result costs the
/// same index work as before on PostgreSQL (HOT: the value does not change
/// for most results) and one more index entry on SQLite only when written.
enum Schema0027 {
    static let migration = Migration(name: "0027_monitor_listing", sql: """
        ALTER TABLE monitors ADD COLUMN search TEXT NOT NULL DEFAULT '';
        UPDATE monitors SET search = \(MonitorListing.searchSQL);
        CREATE INDEX monitors_worst_first ON monitors (\(MonitorListing.rankSQL), name COLLATE NOCASE, id, search);
        CREATE INDEX monitors_id_search ON monitors (id, search);
        """)
}
