import Config

/// Target `toml`: the configuration file parser (an admin's file, or one a
/// script wrote). It must answer every input with a table or an error that
/// has a position inside the text, and answer the same way twice.
enum TOMLTarget {
    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: input, as: UTF8.self)
        let first = Result { () throws(TOMLError) in try TOMLParser.parse(text) }
        let second = Result { () throws(TOMLError) in try TOMLParser.parse(text) }
        switch (first, second) {
        case (.success(let a), .success(let b)):
            precondition(a == b, "two parses of one text differ")
        case (.failure(let a), .failure(let b)):
            precondition(a == b, "two parses of one text fail differently")
            precondition(a.position.line >= 1 && a.position.column >= 1, "error position before the text")
        default:
            preconditionFailure("one parse failed, the other did not")
        }
    }
}
