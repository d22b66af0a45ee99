import Core
import Testing

/// `ByteArrays.filled`: the bytes written, as many as said, on both sides of
/// the stack limit.
@Suite struct ByteArraysTests {
    @Test(arguments: [0, 1, 31, 1023, 1024, 1025, 70_000])
    func whatIsWrittenIsWhatComesBack(capacity: Int) {
        let written = capacity / 2 + capacity % 2
        let bytes = ByteArrays.filled(capacity: capacity) { room in
            #expect(room.count >= capacity)
            for i in 0..<written { room[i] = UInt8(truncatingIfNeeded: i &* 7) }
            return written
        }
        #expect(bytes.count == written)
        #expect(bytes == (0..<written).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    }
}
