import Core

/// The statements of a group of check results that change no state (the
/// usual result: a steady monitor's check): their rows, and each monitor's
/// state and last-check columns. `ResultRecorder.applyMany` decides which
/// results those are; this is how they are written, per engine.
///
/// PostgreSQL: each statement costs a parse-bind-execute on the server and
/// waits its turn on the connection, so a group is three statements whatever
/// its size: the monitors' rows locked in one read, the results inserted and
/// the monitors updated from arrays (`unnest`). SQLite runs statements in
/// the process: a prepared statement per row is as cheap as anything there.
public enum ResultWrites {
    /// `Monitors.StateRow` of each of `ids` that exists, locked until COMMIT
    /// (PostgreSQL: in id order, so two hubs locking overlapping groups
    /// cannot deadlock).
    public static func statesForUpdate(_ c: Connection, ids: [Int64]) throws(StoreError) -> [Int64: Monitors.StateRow] {
        let sorted = Array(Set(ids)).sorted()
        var out: [Int64: Monitors.StateRow] = [:]
        out.reserveCapacity(sorted.count)
        let list: SQLValue
        if c.engine == .postgres {
            var array = PostgresArray(capacity: sorted.count * 8)
            for id in sorted { array.append(id) }
            list = array.literal
        } else {
            list = .text(JSON.array(sorted.map { .int($0) }).text)
        }
        for r in try c.query(c.engine == .postgres ? SQL.statesPostgres : SQL.statesSQLite, [list]) {
            let row = try Monitors.StateRow(row: r)
            out[row.id] = row
        }
        return out
    }

    /// Inserts the results, in order.
    public static func insert(_ c: Connection, _ rows: [CheckResultRecord]) throws(StoreError) {
        guard !rows.isEmpty else { return }
        guard c.engine == .postgres, rows.count > 1 else {
            for r in rows { try CheckResults.insert(c, r) }
            return
        }
        var columns = (0..<9).map { _ in PostgresArray(capacity: rows.count * 8) }
        for r in rows {
            columns[0].append(r.monitorID)
            columns[1].append(r.atMs)
            columns[2].append(r.location)
            columns[3].append(r.status)
            columns[4].append(r.latencyMs)
            columns[5].append(r.statusCode)
            columns[6].append(r.error)
            columns[7].append(Int64(r.inMaintenance ? 1 : 0))
            columns[8].append(r.packetLoss)
        }
        try c.executeDeferred(SQL.insertPostgres, columns.map(\.literal))
    }

    /// One monitor's new state and last check, and its new status when the
    /// result changed it (nil: the status columns stay as they are).
    public struct LastUpdate: Sendable {
        public var id: Int64
        public var state: String
        public var last: Monitors.LastCheck
        public var status: (name: String, since: Int64)?
        public init(id: Int64, state: String, last: Monitors.LastCheck, status: (name: String, since: Int64)? = nil) {
            (self.id, self.state, self.last, self.status) = (id, state, last, status)
        }
    }

    /// Updates each monitor's state and last check (and status, where it
    /// changed). At most one update per monitor: PostgreSQL's UPDATE … FROM
    /// applies one of several matching rows, and which one is not defined.
    /// The status columns are set only where they change: SQLite rewrites
    /// every index on a column an UPDATE names, even to the same value.
    public static func update(_ c: Connection, _ updates: [LastUpdate]) throws(StoreError) {
        guard !updates.isEmpty else { return }
        guard c.engine == .postgres, updates.count > 1 else {
            for u in updates {
                if let status = u.status {
                    try Monitors.updateState(c, id: u.id, status: status.name, statusSince: status.since, state: u.state,
                                             paused: false, last: u.last)
                } else {
                    try Monitors.updateState(c, id: u.id, state: u.state, last: u.last)
                }
            }
            return
        }
        let changed = updates.filter { $0.status != nil }
        if !changed.isEmpty {
            var names = PostgresArray(capacity: changed.count * 8)
            var since = PostgresArray(capacity: changed.count * 12)
            for u in changed {
                names.append(u.status?.name)
                since.append(u.status?.since)
            }
            try c.executeDeferred(SQL.updateStatusPostgres, bulkLast(changed) + [names.literal, since.literal])
        }
        let steady = updates.filter { $0.status == nil }
        if !steady.isEmpty { try c.executeDeferred(SQL.updatePostgres, bulkLast(steady)) }
    }

    /// The ten array parameters of `SQL.updatePostgres`.
    private static func bulkLast(_ updates: [LastUpdate]) -> [SQLValue] {
        var columns = (0..<10).map { _ in PostgresArray(capacity: updates.count * 16) }
        for u in updates {
            columns[0].append(u.id)
            columns[1].append(u.state)
            columns[2].append(u.last.at)
            columns[3].append(u.last.location)
            columns[4].append(u.last.status)
            columns[5].append(u.last.latencyMs)
            columns[6].append(u.last.statusCode)
            columns[7].append(u.last.error)
            columns[8].append(u.last.packetLoss)
            columns[9].append(u.last.certNotAfter)
        }
        return columns.map(\.literal)
    }

    enum SQL {
        static let stateColumns = "id, status, status_since, state, paused, last_at, has_parents, has_children"
        static let statesSQLite = """
            SELECT \(stateColumns) FROM monitors WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id
            """
        static let statesPostgres = """
            SELECT \(stateColumns) FROM monitors WHERE id = ANY(CAST(? AS BIGINT[])) ORDER BY id FOR NO KEY UPDATE
            """
        static let insertPostgres = """
            INSERT INTO check_results (monitor_id, at_ms, location, status, latency_ms, status_code, error, in_maintenance,
                packet_loss)
            SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]),
                CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS DOUBLE PRECISION[]))
            """
        /// `Monitors.SQL.updateLast` for many monitors at once.
        static let updatePostgres = """
            UPDATE monitors AS m SET state = v.state, last_at = v.last_at, last_location = v.last_location,
                last_status = v.last_status, last_latency_ms = v.last_latency_ms, last_status_code = v.last_status_code,
                last_error = v.last_error, last_packet_loss = v.last_packet_loss,
                cert_not_after = coalesce(v.cert_not_after, m.cert_not_after)
            FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]),
                CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS DOUBLE PRECISION[]), CAST(? AS BIGINT[]))
                AS v(id, state, last_at, last_location, last_status, last_latency_ms, last_status_code, last_error,
                     last_packet_loss, cert_not_after)
            WHERE m.id = v.id
            """
        /// `updatePostgres` with the status and its start too (`paused`
        /// stays: a paused monitor's result is never quiet).
        static let updateStatusPostgres = """
            UPDATE monitors AS m SET status = v.status, status_since = v.status_since, state = v.state,
                last_at = v.last_at, last_location = v.last_location,
                last_status = v.last_status, last_latency_ms = v.last_latency_ms, last_status_code = v.last_status_code,
                last_error = v.last_error, last_packet_loss = v.last_packet_loss,
                cert_not_after = coalesce(v.cert_not_after, m.cert_not_after)
            FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]),
                CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS DOUBLE PRECISION[]), CAST(? AS BIGINT[]),
                CAST(? AS TEXT[]), CAST(? AS BIGINT[]))
                AS v(id, state, last_at, last_location, last_status, last_latency_ms, last_status_code, last_error,
                     last_packet_loss, cert_not_after, status, status_since)
            WHERE m.id = v.id
            """
    }
}
