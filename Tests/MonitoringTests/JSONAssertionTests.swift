import Core
import Testing
@testable import Monitoring

/// JSON checks: each op's semantics, the cause texts, the body-level verdict
/// and the validation of `http.json`.
@Suite struct JSONAssertionTests {
    static let body = #"""
    {"status": "degraded", "code": 200, "ratio": 0.5, "version": "2.10.1", "tags": ["eu", "prod", 3],
     "items": [{"id": 1}], "message": "all systems go", "error": null, "ok": true}
    """#

    func holds(_ path: String, _ op: String, _ value: JSON = .null) throws -> Bool {
        let a = try JSONAssertion(path: JSONPath(parsing: path), op: #require(JSONAssertion.Op(rawValue: op)), value: value)
        return a.failure(in: try JSON.parse(Self.body)) == nil
    }

    @Test func equality() throws {
        #expect(try holds("$.status", "==", "degraded"))
        #expect(try !holds("$.status", "==", "ok"))
        #expect(try holds("$.code", "==", 200))
        #expect(try holds("$.code", "==", 200.0), "numbers compare by value")
        #expect(try !holds("$.code", "==", "200"), "a string never equals a number")
        #expect(try holds("$.error", "==", .null))
        #expect(try holds("$.ok", "==", true))
        #expect(try holds("$.items", "==", [["id": 1.0]]), "structural, numbers by value")
        #expect(try holds("$.status", "!=", "ok"))
        #expect(try !holds("$.status", "!=", "degraded"))
        #expect(try !holds("$.missing", "!=", "ok"), "a missing value fails every comparison")
    }

    @Test func ordering() throws {
        #expect(try holds("$.code", "<", 300))
        #expect(try holds("$.code", "<=", 200))
        #expect(try !holds("$.code", "<", 200))
        #expect(try holds("$.code", ">", 199.5))
        #expect(try holds("$.code", ">=", 200))
        #expect(try !holds("$.code", ">", 200))
        #expect(try holds("$.ratio", "<", 1))
        #expect(try holds("$.version", ">", "2.1"), "strings by UTF-8 bytes")
        #expect(try !holds("$.version", ">", "2.9"), "byte order, not version order")
        #expect(try !holds("$.code", "<", "300"), "a number and a string do not order")
        #expect(try !holds("$.ok", ">", 0))
        #expect(try !holds("$.missing", "<", 1))
    }

    @Test func containsAndExistence() throws {
        #expect(try holds("$.message", "contains", "systems"))
        #expect(try !holds("$.message", "contains", "Systems"), "case sensitive")
        #expect(try holds("$.tags", "contains", "prod"))
        #expect(try holds("$.tags", "contains", 3.0))
        #expect(try !holds("$.tags", "contains", "us"))
        #expect(try !holds("$.code", "contains", "20"), "not on numbers")
        #expect(try !holds("$.items[0]", "contains", "id"), "not on objects")
        #expect(try holds("$.error", "exists"), "null is a value")
        #expect(try holds("$.items[0].id", "exists"))
        #expect(try !holds("$.items[1]", "exists"))
        #expect(try holds("$.nope", "not_exists"))
        #expect(try !holds("$.status", "not_exists"))
    }

    @Test func causesNamePathAndValue() throws {
        func cause(_ path: String, _ op: JSONAssertion.Op, _ value: JSON = .null) throws -> String? {
            try JSONAssertion(path: JSONPath(parsing: path), op: op, value: value).failure(in: JSON.parse(Self.body))
        }
        #expect(try cause("$.status", .equal, "ok") == #"$.status is "degraded", expected == "ok""#)
        #expect(try cause("$.code", .greater, 500) == "$.code is 200, expected > 500")
        #expect(try cause("$.missing", .equal, "ok") == #"$.missing is missing, expected == "ok""#)
        #expect(try cause("$.nope", .exists) == "$.nope is missing, expected exists")
        #expect(try cause("$.ok", .notExists) == "$.ok is true, expected not_exists")
        #expect(try cause("$[\"items\"]", .contains, 2) == #"$["items"] is [{"id":1}], expected contains 2"#)
        let long = try JSONAssertion(path: JSONPath(parsing: "$"), op: .equal, value: 1)
            .failure(in: .string(String(repeating: "x", count: 500)))
        #expect(long.map { $0.utf8.count < 160 && $0.hasSuffix("…, expected == 1") } == true, "a large value is cut")
    }

    @Test func bodyVerdict() throws {
        let ok = [try JSONAssertion(path: JSONPath(parsing: "$.code"), op: .equal, value: 200)]
        #expect(JSONCheck.failure(of: ok, body: Array(Self.body.utf8), truncated: false) == nil)
        #expect(JSONCheck.failure(of: [], body: Array("<html>".utf8), truncated: false) == nil, "no assertions, no parsing")
        let notJSON = JSONCheck.failure(of: ok, body: Array("<html>".utf8), truncated: false)
        #expect(notJSON?.hasPrefix("body is not JSON (invalid JSON at byte 0") == true, "\(notJSON ?? "nil")")
        #expect(JSONCheck.failure(of: ok, body: [], truncated: false)?.hasPrefix("body is not JSON") == true)
        #expect(JSONCheck.failure(of: ok, body: Array(repeating: 32, count: 2048), truncated: true)
            == "body is larger than 2 KiB; not checked as JSON")
        let two = ok + [try JSONAssertion(path: JSONPath(parsing: "$.status"), op: .equal, value: "ok")]
        #expect(JSONCheck.failure(of: two, body: Array(Self.body.utf8), truncated: false) == #"$.status is "degraded", expected == "ok""#,
                "the first failing assertion is the cause")
    }

    func validate(_ json: JSON) -> JSONFieldError? {
        let body: JSON = ["name": "api", "type": "http", "target": "http://127.0.0.1:1/", "http": ["json": json]]
        do {
            _ = try MonitorValidator.create(try JSONFields(body))
            return nil
        } catch {
            return error
        }
    }

    @Test func validation() throws {
        #expect(validate([["path": "$.status", "op": "==", "value": "ok"], ["path": "$.a", "op": "exists"]]) == nil)
        #expect(validate(.null) == nil)
        #expect(validate([["path": "$.e", "op": "==", "value": .null]]) == nil, "null is a value to compare with")
        #expect(validate("x")?.field == "http.json")
        #expect(validate(.array(Array(repeating: ["path": "$", "op": "exists"], count: 21)))?.field == "http.json")
        #expect(validate([["path": "$", "op": "exists"], "x"])?.field == "http.json[1]")
        #expect(validate([["path": "status", "op": "==", "value": 1]])?.field == "http.json[0].path")
        #expect(validate([["path": "$[*]", "op": "==", "value": 1]])?.field == "http.json[0].path")
        #expect(validate([["op": "==", "value": 1]])?.field == "http.json[0].path")
        #expect(validate([["path": "$", "op": "=~", "value": 1]])?.field == "http.json[0].op")
        #expect(validate([["path": "$", "op": "=="]])?.field == "http.json[0].value")
        #expect(validate([["path": "$", "op": "exists", "value": 1]])?.field == "http.json[0].value")
        #expect(validate([["path": "$", "op": "<", "value": [1]]])?.field == "http.json[0].value")
        #expect(validate([["path": "$", "op": "==", "value": .string(String(repeating: "v", count: 1100))]])?.field == "http.json[0].value")
        #expect(validate([["path": "$", "op": "==", "value": 1, "extra": 2]])?.field == "http.json[0].extra")
        let message = validate([["path": "$.", "op": "exists"]])?.message ?? ""
        #expect(message.contains("at byte 2"), "\(message)")
    }

    @Test func storedAndReadBack() throws {
        let body: JSON = ["name": "api", "type": "http", "target": "http://127.0.0.1:1/",
                          "http": ["json": [["path": "$.a[0]", "op": ">=", "value": 2.5], ["path": "$.b", "op": "not_exists"]]]]
        let config = try MonitorValidator.create(try JSONFields(body))
        #expect(config.http?.json.count == 2)
        let shown = config.json()["http"]?["json"]
        #expect(shown == [["path": "$.a[0]", "op": ">=", "value": 2.5], ["path": "$.b", "op": "not_exists", "value": .null]])
        let again = try MonitorValidator.parseHTTP(try JSONFields(.object(config.settingsJSON())).nested("http"))
        #expect(again == config.http)
        #expect(try MonitorValidator.create(try JSONFields(["name": "t", "type": "tcp", "target": "h:1"])).http == nil)
    }
}
