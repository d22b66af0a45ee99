import Testing
@testable import Config

private func parse(_ text: String) throws(TOMLError) -> TOMLTable { try TOMLParser.parse(text) }

private func parseError(_ text: String) -> TOMLError? {
    do { _ = try TOMLParser.parse(text); return nil } catch { return error }
}

@Suite struct TOMLParserTests {
    static let valid: [(String, TOMLTable)] = [
        ("", [:]),
        ("# only a comment\n\n", [:]),
        ("a = 1\nb = -2\nc = +3\nd = 1_000_000\n", ["a": .integer(1), "b": .integer(-2), "c": .integer(3), "d": .integer(1_000_000)]),
        ("t = true\nf = false # trailing comment", ["t": .boolean(true), "f": .boolean(false)]),
        ("s = \"hi\"\nl = 'C:\\path\\n'", ["s": .string("hi"), "l": .string("C:\\path\\n")]),
        ("\"quoted key\" = 1\n'lit key' = 2\nbare-key_1 = 3", ["quoted key": .integer(1), "lit key": .integer(2), "bare-key_1": .integer(3)]),
        ("[server]\nlisten = \"x\"\n\n[database]\npath = \"p\"\n",
         ["server": .table(["listen": .string("x")]), "database": .table(["path": .string("p")])]),
        ("[a.b]\nx = 1\n[a]\ny = 2\n", ["a": .table(["b": .table(["x": .integer(1)]), "y": .integer(2)])]),
        ("[ a . \"b c\" ]\n", ["a": .table(["b c": .table([:])])]),
        ("arr = [\n  \"a\", # one\n  \"b\",\n  # comment line\n]\n", ["arr": .array([.string("a"), .string("b")])]),
        ("e = []\nm = [1, true, \"x\", [2]]", ["e": .array([]), "m": .array([.integer(1), .boolean(true), .string("x"), .array([.integer(2)])])]),
        ("a = 1\r\nb = 2\r\n", ["a": .integer(1), "b": .integer(2)]),
        ("max = 9223372036854775807\nmin = -9223372036854775808", ["max": .integer(Int.max), "min": .integer(Int.min)]),
        ("\u{FEFF}a = 0", ["a": .integer(0)]),
    ]

    @Test(arguments: 0..<valid.count) func validDocuments(_ index: Int) throws {
        let (text, expected) = Self.valid[index]
        #expect(try parse(text) == expected, "document: \(text)")
    }

    static let invalid: [(String, Int, Int, String)] = [
        ("listen \"x\"", 1, 8, "expected '=' after key \"listen\""),
        ("[server]\n\nlisten 8080", 3, 8, "expected '=' after key \"listen\""),
        ("a = 1\na = 2", 2, 1, "duplicate key \"a\" (first defined at 1:1)"),
        ("[s]\nx = 1\n[s]\n", 3, 1, "table [s] is defined more than once (first defined at 1:1)"),
        ("[s]\nx = 1\n[s.x]\n", 3, 1, "key \"s.x\" is already a value"),
        ("a = [1]\n[[a]]\n", 2, 1, "key \"a\" is already a value"),
        ("[a]\n[[a]]\n", 2, 1, "[a] is already a table"),
        ("[[a]]\n[a]\n", 2, 1, "already an array of tables"),
        ("a = {x = 1}", 1, 5, "inline tables are not supported"),
        ("a.b = 1", 1, 2, "dotted keys are not supported"),
        ("a = 1.5", 1, 5, "floats are not supported"),
        ("a = 0x1F", 1, 5, "only decimal integers are supported"),
        ("a = 1979-05-27", 1, 5, "dates and times are not supported"),
        ("a = 012", 1, 5, "leading zeros"),
        ("a = 1__0", 1, 5, "'_' must be between digits"),
        ("a = 1_", 1, 5, "'_' must be between digits"),
        ("a = 9223372036854775808", 1, 5, "integer out of range"),
        ("a = yes", 1, 5, "invalid value yes; strings must be quoted"),
        ("a =", 1, 4, "missing value"),
        ("a = \"abc", 1, 5, "unterminated string"),
        ("a = \"x\\qy\"", 1, 7, "invalid escape sequence '\\q'"),
        ("a = \"\\u12\"", 1, 6, "\\u escape needs 4 hex digits"),
        ("a = \"\\uD800\"", 1, 6, "not a valid Unicode scalar"),
        ("a = \"\"\"x\"\"\"", 1, 5, "multi-line strings"),
        ("a = 1 b = 2", 1, 7, "expected end of line after value"),
        ("a = [1 2]", 1, 8, "expected ',' or ']' in array"),
        ("a = [1,\n2,\n", 3, 1, "unterminated array (opened at 1:5)"),
        ("[a\n", 1, 3, "expected ']' to close table header"),
        ("[[a]\n", 1, 5, "expected ']]' to close table header"),
        ("= 1", 1, 1, "missing key before '='"),
        ("a = 1\rb = 2", 1, 6, "carriage return must be followed by a line feed"),
        ("é = 1", 1, 1, "expected a key, found 'é'"),
        ("k = \"é\" x", 1, 9, "expected end of line after value, found 'x'"),
        ("a = \"tab\tok\"\nb = \"bell\u{07}\"", 2, 10, "control characters in strings must be escaped"),
    ]

    @Test(arguments: 0..<invalid.count) func invalidDocuments(_ index: Int) {
        let (text, line, column, message) = Self.invalid[index]
        let error = parseError(text)
        #expect(error != nil, "should fail: \(text)")
        guard let error else { return }
        #expect(error.line == line && error.column == column, "\(text): got \(error)")
        #expect(error.message.contains(message), "\(text): got \(error)")
    }

    @Test func escapes() throws {
        let doc = #"s = "q\" b\\ n\n t\t r\r u\u00e9 U\U0001F600 b\b f\f""#
        #expect(try parse(doc)["s"] == .string("q\" b\\ n\n t\t r\r u\u{e9} U\u{1F600} b\u{08} f\u{0C}"))
        #expect(try parse("s = 'no \\escapes \"here\"'")["s"] == .string("no \\escapes \"here\""))
        #expect(try parse("s = \"\"\nt = ''")["t"] == .string(""))
    }

    @Test func arraysOfTables() throws {
        let doc = """
        [[oauth.clients]]
        id = "a"
        [[oauth.clients]]
        id = "b"
        [oauth.clients.extra]
        x = 1
        [[oauth.clients]]
        """
        let root = try parse(doc)
        let expected: TOMLTable = ["oauth": .table(["clients": .array([
            .table(["id": .string("a")]),
            .table(["id": .string("b"), "extra": .table(["x": .integer(1)])]),
            .table([:]),
        ])])]
        #expect(root == expected)
        let clients = root["oauth"]?.tableValue?["clients"]?.arrayValue ?? []
        #expect(clients.map { $0.tableValue?.position } == [TOMLPosition(line: 1, column: 1), TOMLPosition(line: 3, column: 1), TOMLPosition(line: 7, column: 1)])
        #expect(clients.first?.tableValue?.position(of: "id") == TOMLPosition(line: 2, column: 1))
    }

    @Test func keyPositionsAndOrder() throws {
        let root = try parse("# c\n[server]\n  listen = \"x\"\n\tworkers = 2\n")
        let server = try #require(root["server"]?.tableValue)
        #expect(root.position(of: "server") == TOMLPosition(line: 2, column: 1))
        #expect(server.position(of: "listen") == TOMLPosition(line: 3, column: 3))
        #expect(server.position(of: "workers") == TOMLPosition(line: 4, column: 2))
        #expect(server.keys == ["listen", "workers"])
    }

    @Test func renderingRoundTrips() throws {
        let value: TOMLValue = .array([.string("a\"b\\c\n\u{01}é"), .integer(-5), .boolean(true)])
        let root = try parse("x = \(value)")
        #expect(root["x"] == value)
    }
}
