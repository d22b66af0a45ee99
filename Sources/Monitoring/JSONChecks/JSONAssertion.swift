import Core

/// One JSON check of an http monitor (SPEC §12):
/// `{"path": "$.status", "op": "==", "value": "ok"}`.
///
/// Comparison semantics (docs/monitoring.md):
/// - `==` / `!=`: JSON equality. Types must match, except that numbers
///   compare by value (`1` equals `1.0`); a string never equals a number
///   (`"200"` is not `200`). Objects are equal with the same keys and equal
///   values in any order; arrays element by element.
/// - `<` `<=` `>` `>=`: two numbers by value, or two strings by their
///   UTF-8 bytes (ISO dates and zero-padded versions order correctly);
///   anything else fails.
/// - `contains`: a string contains the expected string (bytes, case
///   sensitive); an array contains an element equal to the expected value;
///   anything else fails.
/// - `exists` / `not_exists`: whether the path names a value (`null` is a
///   value); these take no `value`.
public struct JSONAssertion: Sendable, Equatable {
    public enum Op: String, Sendable, CaseIterable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case contains, exists, notExists = "not_exists"

        /// Whether the op compares against a `value`.
        public var takesValue: Bool { self != .exists && self != .notExists }
        var isOrdering: Bool { [.less, .lessOrEqual, .greater, .greaterOrEqual].contains(self) }
    }

    public var path: JSONPath
    public var op: Op
    /// `.null` for `exists` and `not_exists`.
    public var value: JSON

    public init(path: JSONPath, op: Op, value: JSON = .null) {
        self.path = path
        self.op = op
        self.value = value
    }

    /// nil when the assertion holds for `root`, else the cause, such as
    /// `$.status is "degraded", expected == "ok"`.
    public func failure(in root: JSON) -> String? {
        let actual = path.resolve(in: root)
        if holds(actual) { return nil }
        let seen = actual.map { Self.quote($0) } ?? "missing"
        let wanted = op.takesValue ? "\(op.rawValue) \(Self.quote(value))" : op.rawValue
        return "\(path.text) is \(seen), expected \(wanted)"
    }

    func holds(_ actual: JSON?) -> Bool {
        switch op {
        case .exists: return actual != nil
        case .notExists: return actual == nil
        default: break
        }
        guard let actual else { return false }
        switch op {
        case .equal: return Self.equal(actual, value)
        case .notEqual: return !Self.equal(actual, value)
        case .contains:
            switch (actual, value) {
            case (.string(let s), .string(let needle)): return Self.containsBytes(Array(s.utf8), Array(needle.utf8))
            case (.array(let items), _): return items.contains { Self.equal($0, value) }
            default: return false
            }
        default:
            guard let order = Self.order(actual, value) else { return false }
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        }
    }

    static func number(_ j: JSON) -> Double? {
        switch j {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    static func equal(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.entries.allSatisfy { e in y[e.key].map { equal(e.value, $0) } ?? false }
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        default:
            if let x = number(a), let y = number(b) { return x == y }
            return a == b
        }
    }

    /// -1, 0 or 1; nil when the two cannot be ordered.
    static func order(_ a: JSON, _ b: JSON) -> Int? {
        if case .int(let x) = a, case .int(let y) = b { return x < y ? -1 : (x == y ? 0 : 1) }
        if let x = number(a), let y = number(b) {
            guard !x.isNaN, !y.isNaN else { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        }
        if case .string(let x) = a, case .string(let y) = b {
            let xs = Array(x.utf8), ys = Array(y.utf8)
            return xs.lexicographicallyPrecedes(ys) ? -1 : (xs == ys ? 0 : 1)
        }
        return nil
    }

    static func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }

    /// Compact JSON of a value for a cause, cut to 100 bytes so a large
    /// object cannot swamp an incident or a notification.
    static func quote(_ j: JSON) -> String {
        TextLimit.cut(j.text, to: 100, in: .utf8Bytes)
    }
}
