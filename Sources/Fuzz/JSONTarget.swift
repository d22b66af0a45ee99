import Core

/// Target `json`: the JSON parser (request bodies, targets' answers, the
/// relay's and chat services' replies). A value that parses serializes to
/// JSON that parses again and serializes to the same bytes.
enum JSONTarget {
    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        guard let value = try? JSON.parse(Array(input), maxDepth: 32) else { return }
        let text = value.serialized()
        let again: JSON
        do {
            again = try JSON.parse(text, maxDepth: 32)
        } catch {
            preconditionFailure("our serialization does not parse: \(error)")
        }
        precondition(again.serialized() == text, "serialize(parse(serialize(v))) differs")
    }
}
