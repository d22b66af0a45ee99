import Testing
import Store
import TestSupport

/// Texts and blobs bound to a cached statement come back byte for byte,
/// whatever their sizes in turn: on SQLite small ones are bound from the
/// statement's arena (`SQLITE_STATIC`), which grows between bindings, and
/// large ones as SQLite's own copy; a String short enough to be stored
/// inline has no heap bytes of its own to point at.
@Suite struct BoundValuesTests {
    @Test(arguments: TestEngine.all) func textsAndBlobsOfEverySizeRoundTrip(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        try db.write { c in try c.executeScript("CREATE TABLE bound (id INTEGER PRIMARY KEY, t TEXT, b BLOB, u TEXT)") }
        let sizes = [1, 15, 16, 300, 20_000, 9_000, 16 * 1024, 16 * 1024 + 1, 3, 0]
        var expected: [(String, [UInt8], String)] = []
        for (i, n) in sizes.enumerated() {
            let text = String(repeating: "é", count: n / 2) + String(repeating: "x", count: n % 2)
            let blob = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
            let other = "row \(i)"
            expected.append((text, blob, other))
            // One statement text: the same cached statement every time.
            try db.write { c in
                try c.execute("INSERT INTO bound (id, t, b, u) VALUES (?, ?, ?, ?)",
                              [.integer(Int64(i)), .text(text), blob.isEmpty ? .null : .blob(blob), .text(other)])
            }
        }
        let rows = try db.read { c in try c.query("SELECT t, b, u FROM bound ORDER BY id") }
        #expect(rows.count == sizes.count)
        for (row, want) in zip(rows, expected) {
            #expect(try row.text("t") == want.0)
            let blob: [UInt8]
            if case .blob(let b)? = row["b"] { blob = b } else { blob = [] }
            #expect(blob == want.1)
            #expect(try row.text("u") == want.2)
        }
        // Many small texts in one statement, as a group of pings binds them.
        let many = (0..<200).map { SQLValue.text("v\($0)") }
        let joined = try db.read { c in
            try c.scalar("SELECT " + Array(repeating: "?", count: 200).joined(separator: " || ',' || "), many)
        }
        #expect(joined == .text((0..<200).map { "v\($0)" }.joined(separator: ",")))
    }
}
