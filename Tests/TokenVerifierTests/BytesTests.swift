import Testing

@testable import TokenVerifier

@Suite struct BytesTests {
    @Test func bytesEqualAgreesWithArrayEqualityAtEveryLengthAndPosition() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var expectedTrue = true
            bytes.withUnsafeBufferPointer { left in
                let copy = Array(left)
                copy.withUnsafeBufferPointer { right in expectedTrue = bytesEqual(left, right) }
            }
            #expect(expectedTrue, "\(length) equal bytes")
            for position in 0..<length {
                for flip: UInt8 in [0x01, 0x80, 0xFF] {
                    var other = bytes
                    other[position] ^= flip
                    let equal = bytes.withUnsafeBufferPointer { left in
                        other.withUnsafeBufferPointer { right in bytesEqual(left, right) }
                    }
                    #expect(!equal, "\(length) bytes, 0x\(String(flip, radix: 16)) flipped at \(position)")
                }
            }
            if length > 0 {
                let shorter = bytes.withUnsafeBufferPointer { left in
                    Array(bytes.dropLast()).withUnsafeBufferPointer { right in bytesEqual(left, right) }
                }
                #expect(!shorter, "\(length) bytes against one fewer")
            }
        }
    }
}
