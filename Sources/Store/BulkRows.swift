/// Multi-row statements (`INSERT … VALUES (…), (…)`, `WHERE id IN (…)`) for
/// writes that arrive in groups (heartbeat pings). One statement for many
/// rows costs the server one parse-plan-execute instead of one each, which
/// is most of a small write's price on PostgreSQL.
///
/// Groups are cut into chunks whose sizes are powers of two (100 rows:
/// 64 + 32 + 4), so there are at most `log2(maxChunk) + 1` distinct texts per
/// statement and each is prepared once per connection, instead of one text
/// (and one prepared statement) per group size.
enum BulkRows {
    static let maxChunk = 64

    /// The chunk sizes `count` is cut into, largest first.
    static func chunks(_ count: Int) -> [Int] {
        var out: [Int] = []
        var left = count
        var size = maxChunk
        while left > 0 {
            while size > left { size /= 2 }
            out.append(size)
            left -= size
        }
        return out
    }

    /// The rows `select` + ` IN (?, …)` finds for every one of `ids`,
    /// asked in `chunks` (a cached statement per chunk size, whatever the
    /// number of ids).
    static func rows(_ c: Connection, _ select: String, in ids: [Int64]) throws(StoreError) -> [Row] {
        var out: [Row] = []
        var start = 0
        for size in chunks(ids.count) {
            let chunk = ids[start..<(start + size)]
            start += size
            let sql = select + " IN (" + Array(repeating: "?", count: size).joined(separator: ", ") + ")"
            out += try c.query(sql, chunk.map { .integer($0) })
        }
        return out
    }

    /// `(?, ?, ?), (?, ?, ?)`: `rows` groups of `columns` placeholders.
    static func placeholders(rows: Int, columns: Int) -> String {
        let one = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return Array(repeating: one, count: rows).joined(separator: ", ")
    }

    /// An `INSERT … VALUES` whose texts for every chunk size are built once:
    /// the heartbeat pings' two inserts run for every group commit, and
    /// building a 64-row text each time was a few per cent of the writer.
    struct Insert: Sendable {
        let columns: Int
        /// By chunk size's log2: 1, 2, 4 … `maxChunk` rows.
        private let texts: [String]

        init(_ head: String, columns: Int) {
            self.columns = columns
            var texts: [String] = []
            var rows = 1
            while rows <= BulkRows.maxChunk {
                texts.append(head + " VALUES " + BulkRows.placeholders(rows: rows, columns: columns))
                rows *= 2
            }
            self.texts = texts
        }

        func text(rows: Int) -> String { texts[rows.trailingZeroBitCount] }
    }

    /// Runs `insert` once per chunk of `items`; `values` appends one item's
    /// `columns` values to the chunk's arguments (no array per row).
    /// Deferred: the chunks of one group travel together with whatever
    /// statement next needs an answer.
    static func run<Item>(_ c: Connection, _ items: [Item], _ insert: Insert,
                          values: (Item, inout [SQLValue]) -> Void) throws(StoreError) {
        var start = 0
        for size in chunks(items.count) {
            var args: [SQLValue] = []
            args.reserveCapacity(size * insert.columns)
            for item in items[start..<(start + size)] { values(item, &args) }
            try c.executeDeferred(insert.text(rows: size), args)
            start += size
        }
    }
}
