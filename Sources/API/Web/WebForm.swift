import Core
import HTTP

/// An `application/x-www-form-urlencoded` body, decoded once. Checkbox
/// groups send one pair per checked box, so values are kept in order.
struct WebForm: Sendable {
    let pairs: [(name: String, value: String)]

    init(_ req: HTTPRequest) {
        let type = req.headers["Content-Type"]?.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
        pairs = type == "application/x-www-form-urlencoded" ? FormCoding.decode(String(decoding: req.body, as: UTF8.self)) : []
    }

    /// The first value of `name`, nil when absent.
    subscript(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// Every value of `name` (checked boxes of a group).
    func all(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    /// A checkbox: present means ticked, whatever its value.
    func checked(_ name: String) -> Bool { self[name] != nil }

    /// The value with surrounding spaces and line breaks removed.
    func trimmed(_ name: String) -> String {
        var s = Substring(self[name] ?? "")
        while let f = s.first, f == " " || f == "\t" || f == "\r\n" || f == "\n" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r\n" || l == "\n" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
