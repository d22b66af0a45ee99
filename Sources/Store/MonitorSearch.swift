/// `?q=` through the trigram index of migration 0029, for both monitor
/// lists. A scan of `monitors.search` (an index's entries in the list's
/// order) is fast while matches are dense, since the page fills early, and
/// reads every monitor for a term few contain. The trigram index is the
/// reverse: its cost grows with the matches. So:
///
/// - The API's id order on SQLite walks FTS5's matches in rowid order
///   (`ftsFrom`/`ftsMatch`): the index gives that order itself, the page
///   stops at its limit whatever the density.
/// - The dashboard's order (and every list on PostgreSQL, whose GIN index
///   has no order) first asks the index for at most `candidateLimit`
///   matches (`candidates`). Fewer: the list reads just those rows. As many
///   or more: matches are at least 1 % of 500,000 monitors, and the scan
///   fills a page after about a hundred entries per row shown.
///
/// Terms shorter than a trigram (`minimumLength`) always scan: no index
/// entry holds fewer than three characters.
///
/// The index folds case itself (FTS5's Unicode folding, `lower()` on
/// PostgreSQL's side), one character at a time, so every monitor whose
/// `search` contains the term is among its matches; the lists still apply
/// `instr(search, lower(term))`, so a match is the same on both engines
/// and with or without the index.
enum MonitorSearch {
    static let minimumLength = 3
    static let candidateLimit = 5000

    /// Whether the trigram index can serve `term` (already `MonitorListing.term`).
    static func usable(_ term: String) -> Bool { term.unicodeScalars.count >= minimumLength }

    /// The FTS5 table joined before `monitors`, in that order (SQLite never
    /// reorders a CROSS JOIN: the index drives, each match is one rowid
    /// lookup). Columns both have (`search`) must then be qualified.
    static let ftsFrom = "monitors_fts CROSS JOIN monitors ON monitors.id = monitors_fts.rowid"

    /// The MATCH of the term bound at `parameter`, as one FTS5 string (a
    /// phrase of its trigrams: consecutive, so a substring), quotes doubled.
    static func ftsMatch(_ parameter: String) -> String {
        "monitors_fts MATCH '\"' || replace(\(parameter), '\"', '\"\"') || '\"'"
    }

    /// The ids of the monitors that may contain `term`, ascending, or nil
    /// when there are more than `candidateLimit` (or the term is too short).
    static func candidates(_ c: Connection, term: String) throws(StoreError) -> [Int64]? {
        guard usable(term) else { return nil }
        if c.engine == .postgres, try dense(c, term: term) { return nil }
        let sql = switch c.engine {
        case .sqlite: "SELECT rowid AS id FROM monitors_fts WHERE \(ftsMatch("?1")) LIMIT ?2"
        case .postgres: "SELECT id FROM monitors WHERE search LIKE lower(?1) ESCAPE '\\' LIMIT ?2"
        }
        let bound = c.engine == .sqlite ? term : "%" + likeEscaped(term) + "%"
        let ids = try c.query(sql, [.text(bound), .integer(Int64(candidateLimit + 1))]).map { r throws(StoreError) in try r.int("id") }
        return ids.count > candidateLimit ? nil : ids.sorted()
    }

    /// PostgreSQL's GIN index answers a LIMIT only after it has built the
    /// bitmap of every match: for a term most monitors contain, 60–70 ms at
    /// 500,000 (bench/pages.sh `?q=API`) only to learn that the scan is
    /// better. So the first `sampleRows` monitors by id are tried first; a
    /// term in `denseInSample` or more of them fills any page of the scan
    /// within a few thousand entries, and the probe is skipped. The sample
    /// only chooses the plan: both give the same monitors.
    static let sampleRows = 1000
    static let denseInSample = 50

    static func dense(_ c: Connection, term: String) throws(StoreError) -> Bool {
        let n = try c.scalar("""
            SELECT count(*) FROM (SELECT search FROM monitors ORDER BY id LIMIT ?2) s WHERE search LIKE lower(?1) ESCAPE '\\'
            """, [.text("%" + likeEscaped(term) + "%"), .integer(Int64(sampleRows))])
        return (n?.integerValue ?? 0) >= Int64(denseInSample)
    }

    /// The ids of the monitors with `tag`, ascending (the key's order), or
    /// nil when more than `candidateLimit` have it: the dashboard's other
    /// rare filter, the same choice as `candidates`.
    static func tagged(_ c: Connection, tag: String) throws(StoreError) -> [Int64]? {
        let ids = try c.query("SELECT monitor_id FROM monitor_tags WHERE tag = ? ORDER BY monitor_id LIMIT ?",
                              [.text(tag), .integer(Int64(candidateLimit + 1))]).map { r throws(StoreError) in try r.int("monitor_id") }
        return ids.count > candidateLimit ? nil : ids
    }

    /// The `FROM` of a `monitors` query restricted to the ids bound as its
    /// first parameter (`bind`), as rowid lookups, and what follows it up
    /// to the first condition. SQLite reads the list as the outer table of
    /// a CROSS JOIN (behind `id IN (SELECT …)` its planner keeps walking
    /// the list order's index, testing each entry against the set);
    /// PostgreSQL takes `= ANY` of an array, which its planner costs by
    /// the array's length.
    static func candidatesFrom(_ c: Connection) -> String {
        switch c.engine {
        case .sqlite: "(SELECT value AS candidate FROM json_each(?)) CROSS JOIN monitors ON monitors.id = candidate WHERE"
        case .postgres: "monitors WHERE " + idAmong("?") + " AND"
        }
    }

    /// PostgreSQL's condition that `id` is in the array literal bound at
    /// `parameter` (`bind`): one spelling for every list that takes
    /// candidates, so both keep the plan `= ANY` gets.
    static func idAmong(_ parameter: String) -> String { "id = ANY(CAST(\(parameter) AS BIGINT[]))" }

    /// The list bound for `candidatesFrom`: a JSON array for SQLite's
    /// `json_each`, an array literal for PostgreSQL.
    static func bind(_ c: Connection, _ ids: [Int64]) -> SQLValue {
        let list = ids.map(String.init).joined(separator: ",")
        return .text(c.engine == .sqlite ? "[" + list + "]" : "{" + list + "}")
    }

    /// `LIKE` sees `%`, `_` and the escape character as its own; the term
    /// means them literally.
    static func likeEscaped(_ term: String) -> String {
        var out = ""
        for ch in term {
            if ch == "%" || ch == "_" || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        return out
    }
}
