/// Writes CBOR (RFC 8949) with definite lengths and shortest-form heads: the Sig_structure a
/// COSE_Sign1 signature covers (TokenVerifier, for every CWT it verifies), and the CWTs that
/// `sign` and `gen` make (TokenTools). Reading CBOR is TokenVerifier's (its strict reader).
package struct CBORWriter {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8] = []

    package init() {}

    /// Bytes a head with `argument` takes.
    @inlinable
    package static func headLength(_ argument: UInt64) -> Int {
        switch argument {
        case 0..<24: 1
        case 24...0xFF: 2
        case 0x100...0xFFFF: 3
        case 0x1_0000...0xFFFF_FFFF: 5
        default: 9
        }
    }

    /// Writes the head of major type `major` with `argument` at `target`; returns its length.
    @inlinable
    package static func writeHead(major: UInt8, argument: UInt64, to target: UnsafeMutablePointer<UInt8>) -> Int {
        let length = headLength(argument)
        let info: UInt8 =
            switch length {
            case 1: UInt8(argument)
            case 2: 24
            case 3: 25
            case 5: 26
            default: 27
            }
        target[0] = major << 5 | info
        for index in 1..<length {
            target[index] = UInt8(truncatingIfNeeded: argument >> (8 * UInt64(length - 1 - index)))
        }
        return length
    }

    /// Appends a head.
    package mutating func head(major: UInt8, argument: UInt64) {
        var encoded: (UInt64, UInt8) = (0, 0)
        let length = withUnsafeMutableBytes(of: &encoded) { raw in
            Self.writeHead(major: major, argument: argument, to: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        withUnsafeBytes(of: &encoded) { bytes.append(contentsOf: $0.prefix(length)) }
    }

    /// Appends an integer.
    package mutating func integer(_ value: Int64) {
        if value >= 0 { head(major: 0, argument: UInt64(value)) } else { head(major: 1, argument: UInt64(-1 - value)) }
    }

    /// Appends a text string.
    package mutating func text(_ value: String) {
        head(major: 3, argument: UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    /// Appends a byte string.
    package mutating func byteString(_ value: some Collection<UInt8>) {
        head(major: 2, argument: UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a double as the shortest float that holds it exactly (half, single or double).
    package mutating func float(_ value: Double) {
        if let half = Float16(exactly: value) {
            bytes.append(0xF9)
            bytes.append(contentsOf: withUnsafeBytes(of: half.bitPattern.bigEndian, Array.init))
        } else if let single = Float(exactly: value) {
            bytes.append(0xFA)
            bytes.append(contentsOf: withUnsafeBytes(of: single.bitPattern.bigEndian, Array.init))
        } else {
            bytes.append(0xFB)
            bytes.append(contentsOf: withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init))
        }
    }

    /// Appends bytes that are already CBOR.
    package mutating func raw(_ encoded: some Collection<UInt8>) {
        bytes.append(contentsOf: encoded)
    }

    /// The Sig_structure of RFC 9052 §4.4 for COSE_Sign1 with no external data:
    /// `["Signature1", protected, h'', payload]`, written at `target`; returns its length.
    @inlinable
    package static func writeSignatureStructure(
        protected: UnsafeBufferPointer<UInt8>, payload: UnsafeBufferPointer<UInt8>,
        to target: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var length = 0
        target[0] = 0x84
        length += 1
        length += writeHead(major: 3, argument: 10, to: target + length)
        for byte in "Signature1".utf8 {
            target[length] = byte
            length += 1
        }
        length += writeHead(major: 2, argument: UInt64(protected.count), to: target + length)
        if protected.count > 0 { (target + length).update(from: protected.baseAddress!, count: protected.count) }
        length += protected.count
        target[length] = 0x40
        length += 1
        length += writeHead(major: 2, argument: UInt64(payload.count), to: target + length)
        if payload.count > 0 { (target + length).update(from: payload.baseAddress!, count: payload.count) }
        return length + payload.count
    }

    /// Length of the Sig_structure for a protected header and a payload of these lengths.
    @inlinable
    package static func signatureStructureLength(protected: Int, payload: Int) -> Int {
        12 + headLength(UInt64(protected)) + protected + 1 + headLength(UInt64(payload)) + payload
    }

    /// The Sig_structure `["Signature1", protected, h'', payload]` that a COSE_Sign1 signature covers.
    package static func signatureStructure(protected: [UInt8], payload: [UInt8]) -> [UInt8] {
        var structure = [UInt8](
            repeating: 0, count: signatureStructureLength(protected: protected.count, payload: payload.count))
        protected.withUnsafeBufferPointer { protectedBytes in
            payload.withUnsafeBufferPointer { payloadBytes in
                _ = structure.withUnsafeMutableBufferPointer {
                    writeSignatureStructure(protected: protectedBytes, payload: payloadBytes, to: $0.baseAddress!)
                }
            }
        }
        return structure
    }
}
