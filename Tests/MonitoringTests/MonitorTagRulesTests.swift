import Core
import Testing
@testable import Monitoring

/// Tag validation (SPEC §12) through the monitor validator.
@Suite struct MonitorTagRulesTests {
    private func create(tags: JSON) throws(JSONFieldError) -> MonitorConfig {
        try MonitorValidator.create(try JSONFields(.object(JSONObject([
            ("name", "db"), ("type", "tcp"), ("target", "10.0.0.1:5432"), ("tags", tags),
        ]))))
    }

    private func field(_ tags: JSON) -> String? {
        do {
            _ = try create(tags: tags)
            return nil
        } catch {
            return error.field
        }
    }

    @Test func lowercasedDeduplicatedSorted() throws {
        #expect(try create(tags: ["Prod", "eu", "PROD", "a.b_c:d-9"]).tags == ["a.b_c:d-9", "eu", "prod"])
        #expect(try create(tags: []).tags == [])
        #expect(try create(tags: .null).tags == [])
        #expect(try create(tags: .array((0..<20).map { .string("t\($0)") })).tags.count == 20)
        // Twenty-one spellings of twenty tags are fine: the limit counts tags.
        #expect(try create(tags: .array((0..<20).map { .string("t\($0)") } + ["T0"])).tags.count == 20)
    }

    @Test func refusedWithTheirField() {
        #expect(field(["ok", ""]) == "tags[1]")
        #expect(field(["with space"]) == "tags[0]")
        #expect(field(["ümlaut"]) == "tags[0]")
        #expect(field(["slash/no"]) == "tags[0]")
        #expect(field([.string(String(repeating: "a", count: 41))]) == "tags[0]")
        #expect(field([.string(String(repeating: "a", count: 40))]) == nil)
        #expect(field(.array((0..<21).map { .string("t\($0)") })) == "tags")
        #expect(field([1]) == "tags[0]")
        #expect(field("prod") == "tags")
    }

    @Test func patchKeepsOrReplacesTags() throws {
        let m = try create(tags: ["prod"])
        #expect(try MonitorValidator.patch(m, with: try JSONFields(.object(JSONObject([("interval", 30)])))).tags == ["prod"])
        #expect(try MonitorValidator.patch(m, with: try JSONFields(.object(JSONObject([("tags", ["EU"])])))).tags == ["eu"])
    }
}
