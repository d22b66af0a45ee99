import Config
import Testing

/// `TOMLWriter`: what it writes, `TOMLParser` reads back as an equal table.
@Suite struct TOMLWriterTests {
    func roundTrip(_ table: TOMLTable, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let text = try TOMLWriter.write(table)
        let back = try TOMLParser.parse(text)
        #expect(back == table, "written:\n\(text)", sourceLocation: sourceLocation)
        // Writing the parsed table again gives the same bytes.
        #expect(try TOMLWriter.write(back) == text, sourceLocation: sourceLocation)
        return text
    }

    @Test func stringsThatNeedEscapes() throws {
        let strings = ["plain", "", "quote \" inside", "back\\slash", "line\nbreak", "cr\r\nlf", "tab\there",
                       "bell \u{07} and nul \u{00}", "del \u{7F}", "unicode é ✓ 🚀", "'single'", "# not a comment", "env:NAME",
                       "\u{1B}[31mred\u{1B}[0m"]
        var t = TOMLTable()
        for (n, s) in strings.enumerated() { t.set("s\(n)", .string(s), at: nil) }
        t.set("list", .array(strings.map { .string($0) }), at: nil)
        let text = try roundTrip(t)
        #expect(text.contains(#"s1 = """#))
        #expect(text.contains(#"s2 = "quote \" inside""#))
        #expect(text.contains(#"s6 = "tab\there""#))
        #expect(text.contains(#"s8 = "del \u007F""#))
        #expect(!text.contains("\u{07}") && !text.contains("\u{7F}"), "control characters are escaped")
    }

    @Test func keysThatNeedQuotes() throws {
        var headers = TOMLTable()
        headers.set("X-Api-Key", .string("k"), at: nil)
        headers.set("with space", .string("v"), at: nil)
        headers.set("dotted.name", .string("d"), at: nil)
        headers.set("ünï", .string("u"), at: nil)
        var t = TOMLTable()
        t.set("headers", .table(headers), at: nil)
        let text = try roundTrip(t)
        #expect(text.contains(#""dotted.name" = "d""#))
        #expect(text.contains("X-Api-Key = \"k\""))
    }

    @Test func nestedTablesAndArraysOfTables() throws {
        var json1 = TOMLTable()
        json1.set("path", .string("$.status"), at: nil)
        json1.set("op", .string("=="), at: nil)
        json1.set("value", .string("ok"), at: nil)
        var json2 = TOMLTable()
        json2.set("path", .string("$.items[0]"), at: nil)
        json2.set("op", .string("exists"), at: nil)
        var http = TOMLTable()
        http.set("method", .string("GET"), at: nil)
        http.set("headers", .table(TOMLTable()), at: nil)   // empty table
        http.set("json", .array([.table(json1), .table(json2)]), at: nil)
        var api = TOMLTable()
        api.set("key", .string("api"), at: nil)
        api.set("interval", .integer(60), at: nil)
        api.set("paused", .boolean(false), at: nil)
        api.set("tags", .array([.string("prod"), .string("eu")]), at: nil)
        api.set("locations", .array([]), at: nil)
        api.set("http", .table(http), at: nil)
        api.set("depends_on", .array([]), at: nil)
        var db = TOMLTable()
        db.set("key", .string("db"), at: nil)
        db.set("matrix", .array([.array([.integer(1), .integer(-2)]), .array([])]), at: nil)
        var step = TOMLTable()
        step.set("channels", .array([.string("ops-slack")]), at: nil)
        step.set("delay_minutes", .integer(10), at: nil)
        var policy = TOMLTable()
        policy.set("key", .string("ops"), at: nil)
        policy.set("steps", .array([.table(step), .table(step)]), at: nil)
        var root = TOMLTable()
        root.set("title", .string("top-level value"), at: nil)
        root.set("monitors", .array([.table(api), .table(db)]), at: nil)
        root.set("escalation_policies", .array([.table(policy)]), at: nil)
        let text = try roundTrip(root)
        #expect(text.contains("[[monitors]]\nkey = \"api\""))
        #expect(text.contains("[monitors.http]\nmethod = \"GET\""))
        #expect(text.contains("[monitors.http.headers]\n"))
        #expect(text.contains("[[monitors.http.json]]\npath = \"$.status\""))
        #expect(text.contains("[[escalation_policies.steps]]\nchannels = [\"ops-slack\"]"))
        #expect(text.hasPrefix("title = \"top-level value\"\n"), "plain keys come before any table")
    }

    @Test func refusesWhatTheParserCannotRead() throws {
        var t = TOMLTable()
        t.set("mixed", .array([.string("a"), .table(TOMLTable())]), at: nil)
        #expect(throws: TOMLWriter.Unwritable.self) { try TOMLWriter.write(t) }
        var nested = TOMLTable()
        nested.set("deep", .array([.array([.table(TOMLTable())])]), at: nil)
        #expect(throws: TOMLWriter.Unwritable.self) { try TOMLWriter.write(nested) }
    }
}
