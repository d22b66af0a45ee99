/// A small Mustache-like template, parsed once: `{{name}}` (HTML-escaped),
/// `{{{name}}}` (raw: only for markup the hub built itself, such as SVG),
/// `{{#name}}…{{/name}}` (a list repeats its body per item; a true value or a
/// non-empty string shows it once), `{{^name}}…{{/name}}` (shown when the
/// value is missing, false or empty), `{{> partial}}` (another template).
/// Names may be dotted (`monitor.name`); lookups go from the innermost
/// section outwards. There is no logic beyond that on purpose: pages get
/// their values ready-made from Swift.
public struct Template: Sendable {
    indirect enum Node: Sendable {
        case text(String)
        case value(String, escaped: Bool)
        case section(String, inverted: Bool, [Node])
        case partial(String)
    }

    let nodes: [Node]
    public let name: String

    public init(name: String, source: String) throws(TemplateError) {
        self.name = name
        var parser = TemplateParser(name: name, source: Array(source.utf8))
        nodes = try parser.parse()
    }

    /// Renders with `context`; partials come from `partials`.
    public func render(_ context: TemplateValue, partials: [String: Template] = [:]) -> String {
        var out = ""
        out.reserveCapacity(4096)
        Self.render(nodes, stack: [context], partials: partials, depth: 0, into: &out)
        return out
    }

    static func render(_ nodes: [Node], stack: [TemplateValue], partials: [String: Template], depth: Int, into out: inout String) {
        for node in nodes {
            switch node {
            case .text(let s):
                out += s
            case .value(let name, let escaped):
                guard let v = lookup(name, in: stack) else { continue }
                out += escaped ? HTML.escape(v.text) : v.text
            case .section(let name, let inverted, let body):
                let v = lookup(name, in: stack)
                if inverted {
                    if !(v?.isTruthy ?? false) { render(body, stack: stack, partials: partials, depth: depth, into: &out) }
                    continue
                }
                guard let v, v.isTruthy else { continue }
                if case .list(let items) = v {
                    for item in items { render(body, stack: stack + [item], partials: partials, depth: depth, into: &out) }
                } else {
                    render(body, stack: stack + [v], partials: partials, depth: depth, into: &out)
                }
            case .partial(let name):
                // Depth-limited so a partial that includes itself cannot loop.
                guard depth < 8, let p = partials[name] else { continue }
                render(p.nodes, stack: stack, partials: partials, depth: depth + 1, into: &out)
            }
        }
    }

    static func lookup(_ name: String, in stack: [TemplateValue]) -> TemplateValue? {
        if name == "." { return stack.last }
        let parts = name.split(separator: ".").map(String.init)
        for ctx in stack.reversed() {
            guard var v = ctx[parts[0]] else { continue }
            for p in parts.dropFirst() {
                guard let next = v[p] else { return nil }
                v = next
            }
            return v
        }
        return nil
    }
}

public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
