/// Canonical base64url (RFC 4648 §5) without padding, as JWS Compact Serialization uses it.
///
/// Decoding is strict: only the 64 URL-safe characters, no `=` padding, no white space, a length
/// that is not 1 modulo 4, and unused trailing bits equal to zero. Anything else is rejected, so
/// every byte string has exactly one accepted encoding.
public enum Base64URL {
    /// Decodes `encoded`, or returns nil when it is not canonical base64url.
    public static func decode(_ encoded: some Collection<UInt8>) -> [UInt8]? {
        var output: [UInt8]? = nil
        var copy = Array(encoded)
        copy.withUnsafeMutableBufferPointer { buffer in
            output = decode(UnsafeBufferPointer(buffer))
        }
        return output
    }

    /// Decodes `encoded`, or returns nil when it is not canonical base64url.
    static func decode(_ encoded: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let outputCount = decodedCount(encoded.count) else { return nil }
        // Zero capacity would hand out the shared empty-array storage for writing (a data race).
        if outputCount == 0 { return [] }
        var failed = false
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
            if let written = decode(encoded, into: out) {
                initialized = written
            } else {
                failed = true
                initialized = 0
            }
        }
        return failed ? nil : output
    }

    /// The decoded length of `count` base64url characters, or nil for a length no canonical
    /// encoding has (1 modulo 4).
    @inline(__always)
    static func decodedCount(_ count: Int) -> Int? {
        let remainder = count & 3
        if remainder == 1 { return nil }
        return (count / 4) * 3 + (remainder == 0 ? 0 : remainder - 1)
    }

    /// Decodes `encoded` into `out`, which holds at least ``decodedCount(_:)`` bytes; returns the
    /// number of bytes written, or nil when `encoded` is not canonical base64url.
    static func decode(_ encoded: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        let count = encoded.count
        let remainder = count & 3
        guard let outputCount = decodedCount(count), out.count >= outputCount else { return nil }
        var inIndex = 0
        var outIndex = 0
        let fullEnd = count - remainder
        if fullEnd > 0 {
            shiftedTables.withUnsafeBufferPointer { tables in
                let table = tables.baseAddress!
                let target = UnsafeMutableRawPointer(out.baseAddress!)
                // Each group of four characters: one lookup a character, already in place, and
                // one 4-byte store whose fourth byte the next group overwrites (never past
                // `outputCount`).
                while inIndex < fullEnd {
                    let word =
                        table[Int(encoded[inIndex])] | table[256 + Int(encoded[inIndex + 1])]
                        | table[512 + Int(encoded[inIndex + 2])] | table[768 + Int(encoded[inIndex + 3])]
                    if word > 0xFF_FFFF { return }
                    if outIndex + 4 <= outputCount {
                        target.storeBytes(of: (word << 8).bigEndian, toByteOffset: outIndex, as: UInt32.self)
                    } else {
                        out[outIndex] = UInt8(truncatingIfNeeded: word >> 16)
                        out[outIndex + 1] = UInt8(truncatingIfNeeded: word >> 8)
                        out[outIndex + 2] = UInt8(truncatingIfNeeded: word)
                    }
                    inIndex += 4
                    outIndex += 3
                }
            }
            if inIndex < fullEnd { return nil }
        }
        return decodeTable.withUnsafeBufferPointer { decodeTable -> Int? in
            if remainder != 0 {
                let a = decodeTable[Int(encoded[inIndex])]
                let b = decodeTable[Int(encoded[inIndex + 1])]
                let c = remainder == 3 ? decodeTable[Int(encoded[inIndex + 2])] : 0
                if (a | b | c) & 0x80 != 0 { return nil }
                if remainder == 2 {
                    // 12 bits carry 8: the low 4 bits of the second character must be zero.
                    if b & 0x0F != 0 { return nil }
                    out[outIndex] = a << 2 | b >> 4
                    outIndex += 1
                } else {
                    // 18 bits carry 16: the low 2 bits of the third character must be zero.
                    if c & 0x03 != 0 { return nil }
                    out[outIndex] = a << 2 | b >> 4
                    out[outIndex + 1] = (b & 0x0F) << 4 | c >> 2
                    outIndex += 2
                }
            }
            return outIndex
        }
    }

    /// Encodes `bytes` as unpadded base64url.
    public static func encode(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        return input.withUnsafeBufferPointer { encode($0) }
    }

    static func encode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        append(buffer: input, to: &output)
        return output
    }

    /// Appends the unpadded base64url of `bytes` to `output` (no temporary array for contiguous bytes).
    @inlinable
    public static func append(_ bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        if bytes.withContiguousStorageIfAvailable({ append(buffer: $0, to: &output) }) == nil {
            Array(bytes).withUnsafeBufferPointer { append(buffer: $0, to: &output) }
        }
    }

    @usableFromInline
    static func append(buffer input: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let count = input.count
        let encodedCount = (count / 3) * 4 + [0, 2, 3][count % 3]
        if encodedCount == 0 { return }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: encodedCount))
        encodeTable.withUnsafeBufferPointer { table in
            output.withUnsafeMutableBufferPointer { buffer in
                var inIndex = 0
                var outIndex = start
                while inIndex + 3 <= count {
                    let word =
                        UInt32(input[inIndex]) << 16 | UInt32(input[inIndex + 1]) << 8 | UInt32(input[inIndex + 2])
                    buffer[outIndex] = table[Int(word >> 18)]
                    buffer[outIndex + 1] = table[Int(word >> 12 & 0x3F)]
                    buffer[outIndex + 2] = table[Int(word >> 6 & 0x3F)]
                    buffer[outIndex + 3] = table[Int(word & 0x3F)]
                    inIndex += 3
                    outIndex += 4
                }
                let rest = count - inIndex
                guard rest > 0 else { return }
                let word = UInt32(input[inIndex]) << 16 | (rest == 2 ? UInt32(input[inIndex + 1]) << 8 : 0)
                buffer[outIndex] = table[Int(word >> 18)]
                buffer[outIndex + 1] = table[Int(word >> 12 & 0x3F)]
                if rest == 2 { buffer[outIndex + 2] = table[Int(word >> 6 & 0x3F)] }
            }
        }
    }

    /// Encodes `bytes` as an unpadded base64url string.
    public static func encodeString(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: encode(bytes), as: UTF8.self)
    }

    private static let encodeTable: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Four tables of 256 entries, one for each position of a character in its group of four:
    /// the character's six bits at their place in the group's 24, or 0x100_0000 for a byte
    /// outside the alphabet (so that a group holding one is above 0xFF_FFFF).
    private static let shiftedTables: [UInt32] = (0..<4).flatMap { position in
        decodeTable.map { $0 == 0xFF ? 0x100_0000 : UInt32($0) << (18 - 6 * position) }
    }

    /// 0...63 for the alphabet, 0xFF for every other byte.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in encodeTable.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()
}
