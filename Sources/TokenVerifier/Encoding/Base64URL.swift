internal import CTokenBase64

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
        guard let outputCount = decodedCount(count), out.count >= outputCount else { return nil }
        guard count > 0, let input = encoded.baseAddress, let output = out.baseAddress else { return 0 }
        return shiftedTables.withUnsafeBufferPointer { tables in
            decode(input, count: count, into: output, outputCount: outputCount, table: tables.baseAddress!)
        }
    }

    /// Decodes the `count` characters at `input` into the `outputCount` bytes at `output`, with
    /// ``shiftedTables`` at `table`; returns `outputCount`, or nil when the characters are not
    /// canonical base64url.
    @inline(__always)
    private static func decode(
        _ input: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt8>, outputCount: Int,
        table: UnsafePointer<UInt32>
    ) -> Int? {
        let remainder = count & 3
        let target = UnsafeMutableRawPointer(output)
        /// The 24 bits of the group of four characters at `index` (above 0xFF_FFFF when one of
        /// them is outside the alphabet).
        @inline(__always)
        func group(_ index: Int) -> UInt32 {
            table[Int(input[index])] | table[256 + Int(input[index + 1])] | table[512 + Int(input[index + 2])]
                | table[768 + Int(input[index + 3])]
        }
        var inIndex = 0
        var outIndex = 0
        let fullEnd = count - remainder
        // Blocks of 32 characters with AVX2 where the processor has it (none otherwise).
        if fullEnd >= 32 {
            let decoded = tv_base64url_decode_blocks(input, fullEnd, output)
            if decoded < 0 { return nil }
            inIndex = decoded
            outIndex = decoded / 4 * 3
        }
        // Sixteen characters a step, written as two 8-byte stores of six bytes each, the last
        // two bytes of each overwritten later: while at least twenty characters remain, the
        // stores end at least one byte before `outputCount`.
        while inIndex + 20 <= fullEnd {
            let first = group(inIndex)
            let second = group(inIndex + 4)
            let third = group(inIndex + 8)
            let fourth = group(inIndex + 12)
            if first | second | third | fourth > 0xFF_FFFF { return nil }
            let low = UInt64(first) << 40 | UInt64(second) << 16
            let high = UInt64(third) << 40 | UInt64(fourth) << 16
            target.storeBytes(of: low.bigEndian, toByteOffset: outIndex, as: UInt64.self)
            target.storeBytes(of: high.bigEndian, toByteOffset: outIndex + 6, as: UInt64.self)
            inIndex += 16
            outIndex += 12
        }
        // Then a group at a time: one 4-byte store whose fourth byte the next group overwrites,
        // or three single bytes at the end.
        while inIndex < fullEnd {
            let word = group(inIndex)
            if word > 0xFF_FFFF { return nil }
            if outIndex + 4 <= outputCount {
                target.storeBytes(of: (word << 8).bigEndian, toByteOffset: outIndex, as: UInt32.self)
            } else {
                output[outIndex] = UInt8(truncatingIfNeeded: word >> 16)
                output[outIndex + 1] = UInt8(truncatingIfNeeded: word >> 8)
                output[outIndex + 2] = UInt8(truncatingIfNeeded: word)
            }
            inIndex += 4
            outIndex += 3
        }
        if remainder != 0 {
            // Two or three characters: 12 bits carry one byte (the low four must be zero), 18
            // bits carry two (the low two must be zero).
            var word = table[Int(input[inIndex])] | table[256 + Int(input[inIndex + 1])]
            if remainder == 3 { word |= table[512 + Int(input[inIndex + 2])] }
            if word > 0xFF_FFFF { return nil }
            output[outIndex] = UInt8(truncatingIfNeeded: word >> 16)
            if remainder == 2 {
                if word & 0xF000 != 0 { return nil }
                outIndex += 1
            } else {
                if word & 0xC0 != 0 { return nil }
                output[outIndex + 1] = UInt8(truncatingIfNeeded: word >> 8)
                outIndex += 2
            }
        }
        return outIndex
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
    private static let shiftedTables: [UInt32] = {
        var alphabet = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in encodeTable.enumerated() { alphabet[Int(character)] = UInt8(index) }
        return (0..<4).flatMap { position in
            alphabet.map { $0 == 0xFF ? 0x100_0000 : UInt32($0) << (18 - 6 * position) }
        }
    }()
}
