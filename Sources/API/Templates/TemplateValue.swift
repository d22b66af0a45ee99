/// What templates see: strings, booleans, lists and objects, built in Swift.
public enum TemplateValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    case string(String)
    case bool(Bool)
    case list([TemplateValue])
    case object([String: TemplateValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, b in b }))
    }
    public init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }

    public static func int<T: BinaryInteger>(_ n: T) -> TemplateValue { .string(String(n)) }
    public static func optional(_ s: String?) -> TemplateValue { s.map { .string($0) } ?? .bool(false) }

    public subscript(key: String) -> TemplateValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    var text: String {
        switch self {
        case .string(let s): s
        case .bool(let b): b ? "true" : ""
        case .list(let l): String(l.count)
        case .object: ""
        }
    }

    var isTruthy: Bool {
        switch self {
        case .string(let s): !s.isEmpty
        case .bool(let b): b
        case .list(let l): !l.isEmpty
        case .object: true
        }
    }
}
