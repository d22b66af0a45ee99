/// Header fields in arrival order; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field of that name with one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.equalNames($0.name, name) }
    }

    /// The first value of that name.
    public subscript(_ name: String) -> String? {
        for f in fields where Self.equalNames(f.name, name) { return f.value }
        return nil
    }

    /// Every value of that name, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.equalNames($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison (header names are ASCII tokens).
    /// Every request looks up several names: on the bytes of native strings
    /// (always contiguous) this is a loop over two buffers, where zipping two
    /// UTF8Views was 3 % of a cached `/api/me`.
    public static func equalNames(_ a: String, _ b: String) -> Bool {
        let ua = a.utf8, ub = b.utf8
        guard ua.count == ub.count else { return false }
        let fast = ua.withContiguousStorageIfAvailable { pa in
            ub.withContiguousStorageIfAvailable { pb in
                for i in 0..<pa.count where pa[i] != pb[i] && lower(pa[i]) != lower(pb[i]) { return false }
                return true
            }
        }
        if let fast = fast ?? nil { return fast }
        for (x, y) in zip(ua, ub) where x != y && lower(x) != lower(y) { return false }
        return true
    }

    @inline(__always)
    private static func lower(_ c: UInt8) -> UInt8 { (c >= 65 && c <= 90) ? c + 32 : c }
}

extension HTTPHeaders: Equatable {
    /// Same fields in the same order, names and values compared exactly.
    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
