import Core
import Testing

/// Checks an error answer: the status, a JSON body of the spec's shape
/// `{"error": {"code", "message", "field"?}}`, and the code (and field).
func expectError(_ r: WireResponse, _ status: Int, _ code: String? = nil, field: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(r.status == status, "status; body: \(r.text)", sourceLocation: sourceLocation)
    #expect(r.header("Content-Type")?.hasPrefix("application/json") == true,
            "Content-Type \(r.header("Content-Type") ?? "none")", sourceLocation: sourceLocation)
    guard let json = try? r.json() else {
        Issue.record("error body is not valid JSON: \(r.text)", sourceLocation: sourceLocation)
        return
    }
    guard let error = json["error"], let actual = error["code"]?.stringValue else {
        Issue.record("no error.code in \(r.text)", sourceLocation: sourceLocation)
        return
    }
    let message = error["message"]?.stringValue ?? ""
    #expect(!message.isEmpty, "error.message in \(r.text)", sourceLocation: sourceLocation)
    if let code { #expect(actual == code, "error.code in \(r.text)", sourceLocation: sourceLocation) }
    if let field { #expect(error["field"]?.stringValue == field, "error.field in \(r.text)", sourceLocation: sourceLocation) }
}

/// A 2xx (or `status`) answer's JSON body.
func expectJSON(_ r: WireResponse, _ status: Int = 200, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
    try #require(r.status == status, "status \(r.status); body: \(r.text)", sourceLocation: sourceLocation)
    return try r.json()
}

extension String {
    /// Whether the text holds `path:LINE:COL:` (a config issue's position).
    func containsPosition(after path: String) -> Bool {
        var rest = Substring(self)
        while let r = rest.range(of: path + ":") {
            let after = rest[r.upperBound...]
            let line = after.prefix { $0.isNumber }
            let more = after.dropFirst(line.count)
            if !line.isEmpty, more.first == ":" {
                let col = more.dropFirst().prefix { $0.isNumber }
                if !col.isEmpty, more.dropFirst(col.count + 1).first == ":" { return true }
            }
            rest = rest[r.upperBound...]
        }
        return false
    }
}

extension Substring {
    func range(of needle: String) -> Range<Substring.Index>? {
        guard !needle.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
