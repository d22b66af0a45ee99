/// A matched route's path parameters (`id` in `/api/users/{id}`), looked up
/// by name. The names are the pattern's own array (shared, not copied) and
/// the values one small array: a route has at most a few parameters, so a
/// scan beats hashing, and a dictionary per request was half of matching
/// `/ping/{key}` under a flood of pings.
public struct PathParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    private var names: [String]
    private var values: [String]

    init(names: [String], values: [String]) {
        precondition(names.count == values.count)
        (self.names, self.values) = (names, values)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        names = elements.map(\.0)
        values = elements.map(\.1)
    }

    public subscript(name: String) -> String? {
        // The last of a repeated name, as a dictionary built in order keeps.
        guard let i = names.lastIndex(of: name) else { return nil }
        return values[i]
    }

    public var isEmpty: Bool { names.isEmpty }

    /// Name → value (the last of a repeated name).
    public var dictionary: [String: String] {
        Dictionary(zip(names, values), uniquingKeysWith: { _, last in last })
    }

    public static func == (a: PathParameters, b: PathParameters) -> Bool { a.dictionary == b.dictionary }
}
