/// Where a worst-first page ends: the last monitor shown, by the three
/// keys of the order (the dashboard's cursor).
public struct MonitorListPosition: Sendable, Equatable {
    /// `MonitorListing.rank` of its status.
    public var rank: Int
    public var name: String
    public var id: Int64
    public init(rank: Int, name: String, id: Int64) {
        self.rank = rank
        self.name = name
        self.id = id
    }
}

/// The dashboard's list (docs/web.md): monitors worst first (down,
/// degraded, pending, up, paused), then by name without case, then id,
/// one keyset page at a time, through `monitors_worst_first` (migration
/// 0027). Also the search column both lists match `?q=` against.
public enum MonitorListing {
    /// The order of the statuses; anything unknown sorts with `paused`.
    public static let statusOrder = ["down", "degraded", "pending", "up", "paused"]

    public static func rank(_ status: String) -> Int { statusOrder.firstIndex(of: status) ?? statusOrder.count - 1 }

    /// The indexed expression, word for word (an expression index is used
    /// only for the same expression).
    static let rankSQL = "(CASE status WHEN 'down' THEN 0 WHEN 'degraded' THEN 1 WHEN 'pending' THEN 2 WHEN 'up' THEN 3 ELSE 4 END)"

    /// `monitors.search`: name and target, lowercased by the engine's
    /// `lower()` (ASCII on SQLite, Unicode on PostgreSQL), the same function
    /// the query applies to the term, so both sides fold alike. A newline
    /// separates them; `term` removes newlines, so no match spans both.
    static let searchSQL = "lower(name) || '\n' || lower(coalesce(target, ''))"

    /// `searchSQL` of two parameters, name then target, for the INSERT and
    /// the configuration UPDATE that write them: the column is set in the
    /// same statement, not by a second UPDATE, which on PostgreSQL would be
    /// a second row version and a non-HOT update of every index, the
    /// trigram index's dozens of entries among them (bench/scheduler.sh).
    static let searchOfParameters = "lower(CAST(? AS TEXT)) || '\n' || lower(coalesce(CAST(? AS TEXT), ''))"

    /// The `?q=` text as matched: control characters (the separator among
    /// them) removed; `lower()` is applied in SQL.
    static func term(_ q: String) -> String {
        String(String.UnicodeScalarView(q.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
    }

    /// One page: at most `limit` monitors after `after`, worst first. One
    /// index range per status band from the cursor's on (five at most), so
    /// a page reads about `limit` index entries, not every monitor; `?q=`
    /// is checked on the index's `search` entries before a row is read, or
    /// only a rare term's (or tag's) monitors are read.
    public static func worstFirst(_ c: Connection, filter: MonitorFilter, after: MonitorListPosition?,
                                  limit: Int) throws(StoreError) -> [MonitorRecord] {
        var out: [MonitorRecord] = []
        // A rare term or tag: only its monitors are read and sorted
        // (MonitorSearch); several rare ones, those in all of them.
        var rare: [[Int64]] = []
        if let q = filter.query, let ids = try MonitorSearch.candidates(c, term: term(q)) { rare.append(ids) }
        for tag in filter.tags {
            if let ids = try MonitorSearch.tagged(c, tag: tag) { rare.append(ids) }
        }
        let candidates: [Int64]? = rare.isEmpty ? nil
            : rare.count == 1 ? rare[0] : Set(rare[0]).intersection(rare.dropFirst().joined()).sorted()
        let bands = filter.status.map { [rank($0)] } ?? Array(statusOrder.indices)
        for band in bands where band >= (after?.rank ?? 0) && out.count < limit {
            var sql = "SELECT monitors.* FROM " + (candidates == nil ? "monitors WHERE" : MonitorSearch.candidatesFrom(c))
            var args: [SQLValue] = candidates.map { [MonitorSearch.bind(c, $0)] } ?? []
            sql += " \(rankSQL) = ?"
            args.append(.integer(Int64(band)))
            if let a = after, a.rank == band {
                // `name >= ?` is the index range; the OR only drops the
                // names equal to the cursor's that come before it by id.
                sql += " AND name COLLATE NOCASE >= ? AND (name COLLATE NOCASE > ? OR id > ?)"
                args += [.text(a.name), .text(a.name), .integer(a.id)]
            }
            if let s = filter.status {
                sql += " AND status = ?"
                args.append(.text(s))
            }
            if let t = filter.type {
                sql += " AND type = ?"
                args.append(.text(t))
            }
            if let q = filter.query {
                sql += " AND instr(search, lower(?)) > 0"
                args.append(.text(term(q)))
            }
            for tag in filter.tags {
                // A lookup of the key (tag, monitor_id) per index entry: a
                // common tag's monitors come soon in the band. `id IN (…)`
                // would read every monitor with the tag, at each band.
                sql += " AND EXISTS (SELECT 1 FROM monitor_tags WHERE tag = ? AND monitor_id = monitors.id)"
                args.append(.text(tag))
            }
            sql += " ORDER BY name COLLATE NOCASE, id LIMIT ?"
            args.append(.integer(Int64(limit - out.count)))
            out += try c.query(sql, args).map { r throws(StoreError) in try MonitorRecord(row: r) }
        }
        return out
    }

    /// How many monitors have each status, from `MonitorStatusTally`;
    /// statuses nobody has are absent.
    public static func statusCounts(_ c: Connection) throws(StoreError) -> [String: Int] {
        try MonitorStatusTally.read(c).counts
    }
}
