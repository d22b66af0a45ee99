import DNS

/// Target `dns`: the DNS message decoder (answers from any server, or from
/// whoever can spoof one). A message that decodes and encodes again must
/// decode to the same message: the decoder keeps nothing the encoder would
/// drop or change.
enum DNSTarget {
    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        let bytes = Array(input)
        guard let message = try? DNSMessage.parse(bytes) else { return }
        guard let encoded = try? message.encode() else { return }
        let again: DNSMessage
        do {
            again = try DNSMessage.parse(encoded)
        } catch {
            preconditionFailure("our own encoding of a decoded message does not decode: \(error)")
        }
        precondition(again == message, "decode(encode(m)) differs from m")
    }
}
