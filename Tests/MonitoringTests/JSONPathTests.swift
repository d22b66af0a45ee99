import Core
import Testing
@testable import Monitoring

/// The JSONPath subset of JSON checks: what parses, what does not (with the
/// offset of the problem), and that hostile input only ever throws.
@Suite struct JSONPathTests {
    @Test(arguments: [
        ("$", [JSONPath.Step]()),
        ("$.status", [.key("status")]),
        ("$.a.b_c-d.e1", [.key("a"), .key("b_c-d"), .key("e1")]),
        ("$[0]", [.index(0)]),
        ("$.items[12].name", [.key("items"), .index(12), .key("name")]),
        ("$[\"a b\"]", [.key("a b")]),
        ("$['x.y']", [.key("x.y")]),
        ("$[\"q\\\"uote\"][\"back\\\\slash\"]", [.key("q\"uote"), .key("back\\slash")]),
        ("$[\"\"]", [.key("")]),
        ("$.größe", [.key("größe")]),
    ])
    func parses(text: String, steps: [JSONPath.Step]) throws {
        let path = try JSONPath(parsing: text)
        #expect(path.steps == steps)
        #expect(path.text == text)
    }

    @Test(arguments: [
        ("", 0), ("status", 0), ("$.", 2), ("$..a", 2), ("$a", 1), ("$[", 2), ("$[]", 2), ("$[-1]", 2),
        ("$[1", 3), ("$[\"a\"", 5), ("$[\"a", 4), ("$[*]", 2), ("$.a[?(@.x)]", 4), ("$[1:2]", 3),
        ("$[1234567890]", 11), ("$[\"a\\n\"]", 4), ("$ .a", 1), ("$.a b", 3), ("$[\"\u{01}\"]", 3),
    ])
    func refuses(text: String, offset: Int) {
        #expect(throws: JSONPathError.self) { try JSONPath(parsing: text) }
        do {
            _ = try JSONPath(parsing: text)
        } catch {
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }

    @Test func limitsLengthAndSteps() throws {
        #expect(throws: JSONPathError.self) { try JSONPath(parsing: "$" + String(repeating: ".a", count: 300)) }
        #expect(throws: JSONPathError.self) { try JSONPath(parsing: "$" + String(repeating: "[0]", count: 65)) }
        #expect(try JSONPath(parsing: "$" + String(repeating: "[0]", count: 64)).steps.count == 64)
        #expect(try JSONPath(parsing: "$[999999999]").steps == [.index(999_999_999)])
    }

    /// Fuzz-style: random and mutated byte strings, invalid UTF-8 included,
    /// must parse or throw, never trap; a parsed path resolves without trapping.
    @Test func hostileInputNeverTraps() {
        var rng = SplitMix(seed: 17)
        let alphabet = Array("$.[]\"'\\0123456789az_- *?@\u{01}".utf8) + [0xC3, 0xFF, 0x80]
        let doc = try! JSON.parse(#"{"a": [1, {"b": null}], "c": "x"}"#)
        var parsed = 0
        for _ in 0..<20_000 {
            let length = Int(rng.next() % 24)
            var bytes: [UInt8] = [UInt8(ascii: "$")]
            for _ in 0..<length { bytes.append(alphabet[Int(rng.next() % UInt64(alphabet.count))]) }
            if rng.next() % 4 == 0 { bytes.removeFirst() }
            let text = String(decoding: bytes, as: UTF8.self)
            if let path = try? JSONPath(parsing: text) {
                parsed += 1
                _ = path.resolve(in: doc)
            }
        }
        #expect(parsed > 100, "the generator reaches valid paths too")
    }

    @Test func resolves() throws {
        let doc = try JSON.parse(#"{"status": "ok", "items": [{"id": 1}, {"id": 2}], "nothing": null, "a b": true}"#)
        func at(_ p: String) throws -> JSON? { try JSONPath(parsing: p).resolve(in: doc) }
        #expect(try at("$.status") == "ok")
        #expect(try at("$.items[1].id") == 2)
        #expect(try at("$[\"a b\"]") == true)
        #expect(try at("$.nothing") == .null, "null is a value")
        #expect(try at("$.missing") == nil)
        #expect(try at("$.items[2]") == nil, "out of range")
        #expect(try at("$.status.length") == nil, "a step into a string")
        #expect(try at("$.items.id") == nil, "a name on an array")
        #expect(try at("$[0]") == nil, "an index on an object")
        #expect(try at("$") == doc)
    }
}

/// A small deterministic generator, so a failure reproduces.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
