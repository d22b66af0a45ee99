import Core
import Testing

private func parseError(_ bytes: [UInt8], maxDepth: Int = 64) -> JSONParseError? {
    do {
        _ = try JSON.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

private func parseError(_ text: String) -> JSONParseError? { parseError(Array(text.utf8)) }

@Suite struct JSONParserTests {
    // MARK: Valid documents

    @Test(arguments: [
        ("null", JSON.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("\"\"", .string("")),
        ("\"hi\"", .string("hi")),
        ("[]", .array([])),
        ("{}", .object(JSONObject())),
        (" \t\r\n 1 \t\r\n ", .int(1)),
        ("[ 1 , [ ] , { } ]", [1, [], [:]]),
        ("{\"a\":[1,{\"b\":null}],\"c\":{\"d\":[true,false]}}",
         ["a": [1, ["b": nil]], "c": ["d": [true, false]]]),
        ("[[[[\"deep\"]]]]", [[[["deep"]]]]),
    ] as [(String, JSON)])
    func validDocuments(text: String, expected: JSON) throws {
        #expect(try JSON.parse(text) == expected)
    }

    @Test(arguments: [
        ("0", JSON.int(0)),
        ("-0", .int(0)),
        ("7", .int(7)),
        ("-42", .int(-42)),
        ("1234567890", .int(1_234_567_890)),
        ("9223372036854775807", .int(Int64.max)),
        ("-9223372036854775808", .int(Int64.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808.0)),
        ("-9223372036854775809", .double(-9_223_372_036_854_775_809.0)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ("1.5", .double(1.5)),
        ("-0.25", .double(-0.25)),
        ("1.0", .double(1.0)),
        ("1e3", .double(1000)),
        ("1E3", .double(1000)),
        ("1e+2", .double(100)),
        ("-2.5e-3", .double(-0.0025)),
        ("0e0", .double(0)),
        ("1e-400", .double(0)),
    ] as [(String, JSON)])
    func numbers(text: String, expected: JSON) throws {
        #expect(try JSON.parse(text) == expected)
    }

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u0041\u00e9\u00E9""#, "Aéé"),
        (#""\u20ac""#, "€"),
        (#""\u0000""#, "\u{0}"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uD834\uDD1E clef""#, "𝄞 clef"),
        (#""\udbff\udfff""#, "\u{10FFFF}"),
        ("\"raw é€😀\"", "raw é€😀"),
        ("\"\u{7F}\"", "\u{7F}"),
    ] as [(String, String)])
    func stringEscapes(text: String, expected: String) throws {
        #expect(try JSON.parse(text) == .string(expected))
    }

    @Test func keyOrderIsPreserved() throws {
        let json = try JSON.parse(#"{"z":1,"a":2,"m":3,"b":null}"#)
        let object = try #require(json.objectValue)
        #expect(object.keys == ["z", "a", "m", "b"])
        #expect(object["b"] == .null)
        #expect(object["missing"] == nil)
        #expect(json["m"] == .int(3))
    }

    @Test func depthLimitAllowsExactlyMaxDepth() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSON.parse(ok) }
        var nested = "1"
        for _ in 0..<64 { nested = "{\"a\":\(nested)}" }
        #expect(throws: Never.self) { try JSON.parse(nested) }
        #expect(try JSON.parse(Array("[[1]]".utf8), maxDepth: 2) == [[1]])
    }

    // MARK: Invalid documents

    @Test(arguments: [
        ("", 0, "unexpected end of input"),
        ("   ", 3, "unexpected end of input"),
        ("[1,]", 3, "unexpected character"),
        ("{\"a\":1,}", 7, "expected a string key"),
        ("[1 2]", 3, "expected ',' or ']'"),
        ("{\"a\":1 \"b\":2}", 7, "expected ',' or '}'"),
        ("{\"a\" 1}", 5, "expected ':'"),
        ("{1:2}", 1, "expected a string key"),
        ("{'a':1}", 1, "expected a string key"),
        ("01", 1, "leading zeros are not allowed"),
        ("-01", 2, "leading zeros are not allowed"),
        ("[00]", 2, "leading zeros are not allowed"),
        ("-", 1, "invalid number"),
        ("1.", 2, "invalid number"),
        ("1.e5", 2, "invalid number"),
        ("1e", 2, "invalid number"),
        ("1e+", 3, "invalid number"),
        (".5", 0, "unexpected character"),
        ("+1", 0, "unexpected character"),
        ("1e999", 0, "number out of range"),
        ("-1e999", 0, "number out of range"),
        ("NaN", 0, "unexpected character"),
        ("tru", 3, "invalid literal"),
        ("nulL", 3, "invalid literal"),
        ("True", 0, "unexpected character"),
        ("\"abc", 4, "unterminated string"),
        ("\"abc\\", 5, "unterminated string"),
        ("[1,2", 4, "unexpected end of input"),
        ("{\"a\":1", 6, "unexpected end of input"),
        ("{\"a\":", 5, "unexpected end of input"),
        ("{} x", 3, "unexpected data after the value"),
        ("1 2", 2, "unexpected data after the value"),
        ("[1]]", 3, "unexpected data after the value"),
        ("// comment\n1", 0, "unexpected character"),
        ("{\"a\":1,\"a\":2}", 7, "duplicate key \"a\""),
        ("{\"a\":{\"x\":1,\"y\":2,\"x\":3}}", 18, "duplicate key \"x\""),
        ("\"a\tb\"", 2, "control character in string"),
        ("\"a\nb\"", 2, "control character in string"),
        ("\"\u{0}\"", 1, "control character in string"),
        ("\"\\x\"", 3, "invalid escape"),
        ("\"\\U0041\"", 3, "invalid escape"),
        ("\"\\u12G4\"", 5, "invalid \\u escape"),
        ("\"\\u12", 3, "invalid \\u escape"),
        ("[\"\\ud800\"]", 8, "unpaired surrogate"),
        ("\"\\ud800x\"", 7, "unpaired surrogate"),
        ("\"\\udc00\"", 7, "unpaired surrogate"),
        ("\"\\ud800\\u0041\"", 13, "unpaired surrogate"),
        ("\"\\ud800\\ud800\"", 13, "unpaired surrogate"),
    ] as [(String, Int, String)])
    func invalidDocuments(text: String, offset: Int, message: String) throws {
        let error = try #require(parseError(text))
        #expect(error.offset == offset)
        #expect(error.message == message)
        #expect(error.description == "invalid JSON at byte \(offset): \(message)")
    }

    /// Invalid UTF-8 inside a string is refused, and the offset names the
    /// first byte of the bad sequence.
    @Test(arguments: [
        ([0x22, 0xFF, 0x22], 1),                          // never valid in UTF-8
        ([0x22, 0x61, 0x80, 0x22], 2),                    // lone continuation byte
        ([0x22, 0xC0, 0xAF, 0x22], 1),                    // overlong "/"
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),              // overlong 3-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),              // UTF-8 encoded surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),        // beyond U+10FFFF
        ([0x22, 0x61, 0xE2, 0x82, 0x22], 2),              // truncated "€"
        ([0x5B, 0x22, 0x6F, 0x6B, 0x22, 0x2C, 0x22, 0xC3, 0x22, 0x5D], 7),
        ([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D], 2), // in a key
    ] as [([UInt8], Int)])
    func invalidUTF8(bytes: [UInt8], offset: Int) throws {
        let error = try #require(parseError(bytes))
        #expect(error.message == "string is not valid UTF-8")
        #expect(error.offset == offset)
    }

    /// The boundaries of each UTF-8 sequence length are accepted.
    @Test(arguments: [
        ([0xC2, 0x80], "\u{80}"),
        ([0xDF, 0xBF], "\u{7FF}"),
        ([0xE0, 0xA0, 0x80], "\u{800}"),
        ([0xED, 0x9F, 0xBF], "\u{D7FF}"),
        ([0xEE, 0x80, 0x80], "\u{E000}"),
        ([0xEF, 0xBF, 0xBF], "\u{FFFF}"),
        ([0xF0, 0x90, 0x80, 0x80], "\u{10000}"),
        ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}"),
    ] as [([UInt8], String)])
    func validUTF8Boundaries(sequence: [UInt8], expected: String) throws {
        #expect(try JSON.parse([0x22] + sequence + [0x22]) == .string(expected))
        #expect(try JSON.parse([0x7B, 0x22] + sequence + [0x22, 0x3A, 0x30, 0x7D]) == [expected: 0])
    }

    @Test(arguments: [
        [0xC1, 0xBF],                 // overlong 2-byte
        [0xF0, 0x8F, 0xBF, 0xBF],     // overlong 4-byte
        [0xF5, 0x80, 0x80, 0x80],     // lead byte past U+10FFFF
        [0xE2, 0x28, 0xA1],           // bad second byte
        [0xE2, 0x82, 0x28],           // bad third byte
        [0xF0, 0x9F, 0x98, 0x28],     // bad fourth byte
        [0xFE], [0xC3],
    ] as [[UInt8]])
    func invalidUTF8Sequences(sequence: [UInt8]) throws {
        let error = try #require(parseError([0x5B, 0x22] + sequence + [0x22, 0x5D]))
        #expect(error.offset == 2)
        #expect(error.message == "string is not valid UTF-8")
    }

    @Test func truncatedSequenceAtEndOfInput() throws {
        let error = try #require(parseError([0x22, 0xE2, 0x82]))
        #expect(error.offset == 1)
        #expect(error.message == "string is not valid UTF-8")
    }

    @Test func invalidUTF8OutsideStringsIsUnexpected() throws {
        let error = try #require(parseError([0xEF, 0xBB, 0xBF, 0x31]))   // BOM + "1"
        #expect(error.offset == 0)
        #expect(error.message == "unexpected character")
    }

    @Test func nestingDeeperThanLimitIsRefusedAtTheOpeningBracket() throws {
        let arrays = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let error = try #require(parseError(arrays))
        #expect(error.message == "nested too deeply")
        #expect(error.offset == 64)

        var objects = "1"
        for _ in 0..<65 { objects = "{\"a\":\(objects)}" }
        let objectError = try #require(parseError(objects))
        #expect(objectError.message == "nested too deeply")
        #expect(objectError.offset == 64 * 5)

        let small = try #require(parseError(Array("[[[1]]]".utf8), maxDepth: 2))
        #expect(small.offset == 2 && small.message == "nested too deeply")
    }

    /// Very deep input fails cleanly instead of overflowing the stack.
    @Test func hugeNestingDoesNotRecurseUnbounded() throws {
        let text = String(repeating: "[", count: 100_000)
        let error = try #require(parseError(text))
        #expect(error.message == "nested too deeply")
    }

    /// Keys are compared as Swift strings, i.e. by canonical equivalence: an
    /// NFC and an NFD spelling of the same key count as a duplicate.
    @Test func canonicallyEquivalentKeysAreDuplicates() throws {
        let error = try #require(parseError("{\"\u{E9}\":1,\"e\u{301}\":2}"))
        #expect(error.message.hasPrefix("duplicate key"))
    }
}
