import Core
import Testing

private func fields(_ text: String) throws -> JSONFields { try JSONFields(try JSON.parse(text)) }

private func fieldError(_ body: () throws -> Void) -> JSONFieldError? {
    do {
        try body()
        return nil
    } catch {
        return error as? JSONFieldError
    }
}

@Suite struct JSONFieldsTests {
    @Test(arguments: [JSON.array([]), .string("x"), .int(1), .null, .bool(true)])
    func bodyMustBeAnObject(json: JSON) throws {
        let e = try #require(fieldError { _ = try JSONFields(json) })
        #expect(e == JSONFieldError(field: "", message: "The body must be a JSON object."))
    }

    @Test func strings() throws {
        let f = try fields(#"{"name":"Ada","empty":"","nothing":null,"n":1}"#)
        #expect(try f.string("name") == "Ada")
        #expect(try f.string("empty") == "")
        #expect(try f.string("nothing") == nil)
        #expect(try f.string("missing") == nil)
        #expect(try f.requiredString("name") == "Ada")
        #expect(fieldError { _ = try f.string("n") } == JSONFieldError(field: "n", message: "n must be a string, not a number."))
        #expect(fieldError { _ = try f.requiredString("missing") }
                == JSONFieldError(field: "missing", message: "missing is required."))
        #expect(fieldError { _ = try f.requiredString("nothing") }
                == JSONFieldError(field: "nothing", message: "nothing is required."))
    }

    @Test(arguments: [
        ("1", "a number"), ("1.5", "a number"), ("true", "a boolean"), ("[]", "an array"), ("{}", "an object"),
    ])
    func wrongTypeForString(value: String, typeName: String) throws {
        let f = try fields("{\"v\":\(value)}")
        #expect(fieldError { _ = try f.string("v") } == JSONFieldError(field: "v", message: "v must be a string, not \(typeName)."))
    }

    @Test(arguments: [
        ("5", Int64(5)), ("-5", -5), ("0", 0), ("5.0", 5), ("1e3", 1000), ("9223372036854775807", Int64.max),
    ] as [(String, Int64)])
    func integers(value: String, expected: Int64) throws {
        #expect(try fields("{\"n\":\(value)}").int("n") == expected)
    }

    @Test(arguments: [
        ("5.5", "a number"), ("1e300", "a number"), ("9223372036854775808", "a number"),
        ("\"5\"", "a string"), ("true", "a boolean"), ("[1]", "an array"), ("{}", "an object"),
    ])
    func notIntegers(value: String, typeName: String) throws {
        let f = try fields("{\"n\":\(value)}")
        #expect(fieldError { _ = try f.int("n") } == JSONFieldError(field: "n", message: "n must be an integer, not \(typeName)."))
    }

    @Test func integerRanges() throws {
        let f = try fields(#"{"lo":1,"hi":10,"under":0,"over":11,"none":null}"#)
        #expect(try f.int("lo", in: 1...10) == 1)
        #expect(try f.int("hi", in: 1...10) == 10)
        #expect(try f.int("none", in: 1...10) == nil)
        #expect(try f.int("missing", in: 1...10) == nil)
        for key in ["under", "over"] {
            #expect(fieldError { _ = try f.int(key, in: 1...10) }
                    == JSONFieldError(field: key, message: "\(key) must be between 1 and 10."))
        }
        #expect(fieldError { _ = try f.int("lo", in: -5 ... -2) }
                == JSONFieldError(field: "lo", message: "lo must be between -5 and -2."))
    }

    @Test func booleans() throws {
        let f = try fields(#"{"t":true,"f":false,"n":null,"s":"true","i":1}"#)
        #expect(try f.bool("t") == true)
        #expect(try f.bool("f") == false)
        #expect(try f.bool("n") == nil)
        #expect(try f.bool("missing") == nil)
        #expect(fieldError { _ = try f.bool("s") } == JSONFieldError(field: "s", message: "s must be true or false, not a string."))
        #expect(fieldError { _ = try f.bool("i") } == JSONFieldError(field: "i", message: "i must be true or false, not a number."))
    }

    @Test func stringArrays() throws {
        let f = try fields(#"{"tags":["a","b"],"empty":[],"null":null,"mixed":["a",2,"c"],"obj":{}}"#)
        #expect(try f.stringArray("tags") == ["a", "b"])
        #expect(try f.stringArray("empty") == [])
        #expect(try f.stringArray("null") == nil)
        #expect(try f.stringArray("missing") == nil)
        #expect(fieldError { _ = try f.stringArray("mixed") }
                == JSONFieldError(field: "mixed[1]", message: "mixed[1] must be a string."))
        #expect(fieldError { _ = try f.stringArray("obj") }
                == JSONFieldError(field: "obj", message: "obj must be an array, not an object."))
    }

    @Test func nestedPaths() throws {
        let f = try fields(#"{"http":{"method":1,"headers":["ok",null],"tls":{"verify":"yes"}},"n":null,"s":"x"}"#)
        let http = try #require(try f.nested("http"))
        #expect(http.path == "http")
        #expect(http.name("method") == "http.method")
        #expect(fieldError { _ = try http.string("method") }
                == JSONFieldError(field: "http.method", message: "http.method must be a string, not a number."))
        #expect(fieldError { _ = try http.requiredString("url") }
                == JSONFieldError(field: "http.url", message: "http.url is required."))
        #expect(fieldError { _ = try http.stringArray("headers") }
                == JSONFieldError(field: "http.headers[1]", message: "http.headers[1] must be a string."))
        let tls = try #require(try http.nested("tls"))
        #expect(fieldError { _ = try tls.bool("verify") }
                == JSONFieldError(field: "http.tls.verify", message: "http.tls.verify must be true or false, not a string."))
        #expect(try f.nested("n") == nil)
        #expect(try f.nested("missing") == nil)
        #expect(fieldError { _ = try f.nested("s") } == JSONFieldError(field: "s", message: "s must be an object."))
        #expect(fieldError { _ = try http.nested("method") }
                == JSONFieldError(field: "http.method", message: "http.method must be an object."))
    }

    @Test func presence() throws {
        let f = try fields(#"{"a":null,"b":1}"#)
        #expect(f.has("a"))
        #expect(f.has("b"))
        #expect(!f.has("c"))
    }

    @Test(arguments: [
        ("2026-11-29T10:00:00Z", Int64(1_795_946_400)),
        ("1970-01-01T00:00:00Z", 0),
        ("1994-11-06T09:49:37+01:00", 784_111_777),
    ] as [(String, Int64)])
    func times(text: String, expected: Int64) throws {
        #expect(try fields("{\"at\":\"\(text)\"}").time("at") == expected)
    }

    @Test func timeErrors() throws {
        let f = try fields(#"{"at":"yesterday","n":5,"z":null,"day":"2026-02-30T00:00:00Z"}"#)
        let message = "must be an RFC 3339 time such as 2026-11-29T10:00:00Z."
        #expect(fieldError { _ = try f.time("at") } == JSONFieldError(field: "at", message: "at \(message)"))
        #expect(fieldError { _ = try f.time("day") } == JSONFieldError(field: "day", message: "day \(message)"))
        #expect(fieldError { _ = try f.time("n") } == JSONFieldError(field: "n", message: "n must be a string, not a number."))
        #expect(try f.time("z") == nil)
        let nested = try #require(try JSONFields(["check": ["at": "x"]]).nested("check"))
        #expect(fieldError { _ = try nested.time("at") }?.field == "check.at")
    }

    @Test func oneOf() throws {
        let f = try fields(#"{"role":"admin","bad":"root","n":1}"#)
        #expect(try f.oneOf("role", ["admin", "viewer"]) == "admin")
        #expect(try f.oneOf("missing", ["admin", "viewer"]) == nil)
        #expect(fieldError { _ = try f.oneOf("bad", ["admin", "viewer"]) }
                == JSONFieldError(field: "bad", message: "bad must be one of: admin, viewer."))
        #expect(fieldError { _ = try f.oneOf("n", ["admin"]) }
                == JSONFieldError(field: "n", message: "n must be a string, not a number."))
    }
}
