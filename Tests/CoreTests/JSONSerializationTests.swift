import Core
import Testing

@Suite struct JSONSerializationTests {
    @Test(arguments: [
        (JSON.null, "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.int(0), "0"),
        (.int(-17), "-17"),
        (.int(Int64.max), "9223372036854775807"),
        (.int(Int64.min), "-9223372036854775808"),
        (.double(1.5), "1.5"),
        (.double(-0.25), "-0.25"),
        (.double(2.0), "2"),
        (.double(-0.0), "0"),
        (.double(1e20), "1e+20"),
        (.double(0.1), "0.1"),
        (.double(.nan), "null"),
        (.double(.infinity), "null"),
        (.double(-.infinity), "null"),
        (.string(""), "\"\""),
        (.array([]), "[]"),
        (.object(JSONObject()), "{}"),
        ([1, "a", nil, [true]], "[1,\"a\",null,[true]]"),
        (["z": 1, "a": ["y": nil, "b": []]], "{\"z\":1,\"a\":{\"y\":null,\"b\":[]}}"),
    ] as [(JSON, String)])
    func serialization(value: JSON, expected: String) {
        #expect(value.text == expected)
        #expect(value.serialized() == Array(expected.utf8))
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("q\"uote", #""q\"uote""#),
        ("back\\slash", #""back\\slash""#),
        ("slash/", #""slash/""#),
        ("\n\r\t", #""\n\r\t""#),
        ("\u{0}", #""\u0000""#),
        ("\u{1}\u{8}\u{C}\u{1F}", #""\u0001\u0008\u000c\u001f""#),
        ("\u{7F}", #""\u007f""#),
        ("é€😀", "\"é€😀\""),
        ("\u{2028}", "\"\u{2028}\""),
        // Runs between escapes, at the start, the end and side by side.
        ("\"é\u{1}ü\\\\x\n", #""\"é\u0001ü\\\\x\n""#),
        ("", #""""#),
    ] as [(String, String)])
    func stringEscaping(value: String, expected: String) throws {
        #expect(JSON.string(value).text == expected)
        // Whatever is written reads back as the same string.
        #expect(try JSON.parse(expected) == .string(value))
    }

    @Test func keysAreEscapedToo() {
        let json: JSON = ["a\"b\n": 1]
        #expect(json.text == #"{"a\"b\n":1}"#)
    }

    @Test(arguments: [
        "null", "true", "0", "-1", "1.5", "\"x\"", "[]", "{}",
        #"{"b":1,"a":[1,2,{"c":null}],"d":"e\"f\\g\u0001"}"#,
        #"[{"z":{}},[],[[]],"😀",-9223372036854775808]"#,
        #"{"name":"Ada","email":null,"roles":["admin","viewer"],"n":12.25}"#,
    ])
    func parseSerializeRoundTrip(text: String) throws {
        let value = try JSON.parse(text)
        #expect(value.text == text)
        #expect(try JSON.parse(value.serialized()) == value)
    }

    @Test func valueRoundTrip() throws {
        let value: JSON = [
            "string": "line\nbreak \"quoted\" \\ tab\t \u{1} é 😀",
            "int": -123,
            "double": 0.5,
            "big": .double(1e300),
            "null": nil,
            "list": [1, 2.25, "three", [false], ["k": "v"]],
        ]
        #expect(try JSON.parse(value.serialized()) == value)
    }

    /// Whole doubles are written without a fraction and so read back as ints.
    @Test func wholeDoublesReadBackAsInts() throws {
        #expect(try JSON.parse(JSON.double(3).text) == .int(3))
    }

    @Test func explicitNulls() {
        #expect(JSON.from(nil as String?) == .null)
        #expect(JSON.from("x" as String?) == .string("x"))
        #expect(JSON.from(nil as Int64?) == .null)
        #expect(JSON.from(5 as Int64?) == .int(5))
        #expect(JSON.time(nil) == .null)
        #expect(JSON.time(0) == .string("1970-01-01T00:00:00Z"))
        let json: JSON = ["email": .from(nil as String?), "id": 1]
        #expect(json.text == #"{"email":null,"id":1}"#)
        #expect(json["email"]?.isNull == true)
        #expect(json["absent"] == nil)
    }

    @Test func objectMutationKeepsOrder() {
        var o = JSONObject([("a", 1), ("b", 2), ("c", 3)])
        o["b"] = "two"
        o["d"] = nil
        o["e"] = .null
        #expect(o.keys == ["a", "b", "c", "e"])
        o["a"] = nil
        #expect(o.keys == ["b", "c", "e"])
        #expect(o.count == 3)
        #expect(JSON.object(o).text == #"{"b":"two","c":3,"e":null}"#)
    }

    @Test func objectEqualityIsOrderSensitive() {
        let ab: JSON = ["a": 1, "b": 2]
        let ba: JSON = ["b": 2, "a": 1]
        #expect(ab != ba)
        #expect(ab == ["a": 1, "b": 2])
    }

    @Test func accessorsAndTypeNames() {
        let j: JSON = ["s": "x", "i": 1, "b": true, "a": [], "o": [:], "d": 1.5, "n": nil]
        #expect(j["s"]?.stringValue == "x")
        #expect(j["i"]?.intValue == 1)
        #expect(j["b"]?.boolValue == true)
        #expect(j["a"]?.arrayValue == [])
        #expect(j["o"]?.objectValue == JSONObject())
        #expect(j["s"]?.intValue == nil)
        #expect(JSON.int(1)["x"] == nil)
        let names = ["s", "i", "b", "a", "o", "d", "n"].map { j[$0]!.typeName }
        #expect(names == ["a string", "a number", "a boolean", "an array", "an object", "a number", "null"])
    }

    @Test func integersAgreeWithTheirDescription() {
        var rng = SystemRandomNumberGenerator()
        let edges: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1,
                              1_000_000_000_000_000_000, -999_999_999_999_999_999]
        let random = (0..<5_000).map { _ in Int64.random(in: Int64.min...Int64.max, using: &rng) >> Int64.random(in: 0...63, using: &rng) }
        for n in edges + random {
            #expect(JSON.int(n).text == String(n))
        }
    }
}
