import DNS

/// Target `dns`: the DNS message decoder (answers from any server, or from
/// whoever can spoof one). Whatever decodes must encode, and from then on
/// decode and encode are a fixed point: `decode(encode(m2)) == m2` for
/// `m2 = decode(encode(m))`. (Not `m` itself: TXT strings are kept as text,
/// so invalid UTF-8 on the wire comes back as U+FFFD, three bytes, and a
/// 255-byte string may then encode as two; found by this target.)
enum DNSTarget {
    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        guard let message = try? DNSMessage.parse(Array(input)) else { return }
        guard let first = try? message.encode() else { return }
        let m2 = decodeOwn(first)
        guard let second = try? m2.encode() else {
            preconditionFailure("a message decoded from our own encoding does not encode")
        }
        precondition(decodeOwn(second) == m2, "decode(encode(m)) is not a fixed point")
    }

    private static func decodeOwn(_ bytes: [UInt8]) -> DNSMessage {
        do {
            return try DNSMessage.parse(bytes)
        } catch {
            preconditionFailure("our own encoding of a decoded message does not decode: \(error)")
        }
    }
}
