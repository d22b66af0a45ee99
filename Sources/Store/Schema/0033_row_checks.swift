/// The CHECKs of the two tables every check and ping writes, said without
/// an IN list, on SQLite.
///
/// SQLite 3.40 codes `CHECK (status IN ('up', 'degraded', 'down'))` as an
/// ephemeral B-tree that it clears, fills with the list and searches for
/// every inserted row (`EXPLAIN` shows `OpenEphemeral` inside the insert
/// loop): opening, clearing and closing it was about 4 % of the batch
/// writer's time under a flood of heartbeat pings, which write a row to
/// each of `check_results` and `heartbeat_pings`. The same test written as
/// equalities joined by OR is plain comparisons. It accepts and refuses
/// exactly the same values (the columns are NOT NULL), so the stored rows
/// stay valid and the definitions are edited in place (`StoredDefinition`).
/// PostgreSQL tests an IN list against a constant array: nothing to do.
enum Schema0033 {
    static let migration = Migration(name: "0033_row_checks", sql: "", step: rewrite)

    static let edits: [StoredDefinition.Edit] = [
        .init(table: "check_results", old: "CHECK (status IN ('up', 'degraded', 'down'))",
              new: "CHECK (status = 'up' OR status = 'degraded' OR status = 'down')"),
        .init(table: "heartbeat_pings", old: "CHECK (kind IN ('success', 'start', 'fail'))",
              new: "CHECK (kind = 'success' OR kind = 'start' OR kind = 'fail')"),
    ]

    @Sendable static func rewrite(_ c: Connection) throws(StoreError) {
        guard c.engine == .sqlite else { return }
        try StoredDefinition.replace(c, edits, migration: "0033_row_checks")
    }
}
