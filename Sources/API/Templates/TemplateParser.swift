/// Turns template bytes into nodes; unbalanced sections are errors with the
/// template's name and the byte offset, found when the hub starts.
struct TemplateParser {
    let name: String
    let source: [UInt8]
    var i = 0

    init(name: String, source: [UInt8]) {
        self.name = name
        self.source = source
    }

    mutating func parse() throws(TemplateError) -> [Template.Node] {
        let (nodes, closer) = try parseUntil(nil)
        if let closer { throw error("unexpected {{/\(closer)}}") }
        return nodes
    }

    private func error(_ what: String) -> TemplateError {
        TemplateError(message: "template \(name): \(what) at byte \(i)")
    }

    private func startsWith(_ s: String, at k: Int) -> Bool {
        let b = Array(s.utf8)
        guard k + b.count <= source.count else { return false }
        return Array(source[k..<k + b.count]) == b
    }

    private func find(_ s: String, from k: Int) -> Int? {
        var j = k
        while j < source.count {
            if startsWith(s, at: j) { return j }
            j += 1
        }
        return nil
    }

    /// Parses nodes until `{{/section}}` (returned) or the end.
    private mutating func parseUntil(_ section: String?) throws(TemplateError) -> ([Template.Node], String?) {
        var nodes: [Template.Node] = []
        while i < source.count {
            guard let open = find("{{", from: i) else {
                nodes.append(.text(String(decoding: source[i...], as: UTF8.self)))
                i = source.count
                break
            }
            if open > i { nodes.append(.text(String(decoding: source[i..<open], as: UTF8.self))) }
            let triple = startsWith("{{{", at: open)
            let closeToken = triple ? "}}}" : "}}"
            let start = open + (triple ? 3 : 2)
            guard let close = find(closeToken, from: start) else { i = open; throw error("unclosed tag") }
            let raw = String(decoding: source[start..<close], as: UTF8.self)
            let tag = raw.filter { $0 != " " && $0 != "\n" && $0 != "\t" }
            i = close + closeToken.count
            guard !tag.isEmpty else { throw error("empty tag") }
            if triple { nodes.append(.value(tag, escaped: false)); continue }
            let kind = tag.first!
            let rest = String(tag.dropFirst())
            switch kind {
            case "#", "^":
                guard !rest.isEmpty else { throw error("section without a name") }
                let (body, closer) = try parseUntil(rest)
                guard closer == rest else { throw error("{{\(kind)\(rest)}} is not closed") }
                nodes.append(.section(rest, inverted: kind == "^", body))
            case "/":
                guard section == rest else { throw error("{{/\(rest)}} does not close \(section.map { "{{#\($0)}}" } ?? "anything")") }
                return (nodes, rest)
            case ">":
                nodes.append(.partial(rest))
            case "!":
                continue
            default:
                nodes.append(.value(tag, escaped: true))
            }
        }
        return (nodes, nil)
    }
}
