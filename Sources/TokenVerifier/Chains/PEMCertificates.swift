/// The CERTIFICATE blocks of a PEM text (RFC 7468): explanatory text may come before a block, a
/// block of another label is refused, and nothing but white space may follow the last block.
package enum PEMCertificates {
    private static let begin = Array("-----BEGIN ".utf8)
    private static let beginCertificate = Array("-----BEGIN CERTIFICATE-----".utf8)
    private static let endCertificate = Array("-----END CERTIFICATE-----".utf8)

    /// The DER bytes of each block, in order.
    package static func parse(_ text: [UInt8], file: String) throws(TrustAnchorError) -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        var body: [UInt8]? = nil
        var textAfterBlock = false
        for rawLine in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let line = Array(trimmed(rawLine))
            if var inside = body {
                if line == endCertificate {
                    guard let der = decodeBase64(inside) else { throw TrustAnchorError(file: file, reason: .badBase64) }
                    blocks.append(der)
                    body = nil
                    textAfterBlock = false
                } else if line.starts(with: Array("-----".utf8)) {
                    throw TrustAnchorError(file: file, reason: .badBlock("a CERTIFICATE block has no END line"))
                } else {
                    inside.append(contentsOf: line.filter { !isSpace($0) })
                    body = inside
                }
            } else if line == beginCertificate {
                body = []
            } else if line.starts(with: begin) {
                let label = String(decoding: line.dropFirst(begin.count).prefix(40), as: UTF8.self)
                throw TrustAnchorError(
                    file: file, reason: .badBlock("a block \"-----BEGIN \(label)\" is not a CERTIFICATE"))
            } else if !line.isEmpty {
                textAfterBlock = !blocks.isEmpty
            }
        }
        if body != nil { throw TrustAnchorError(file: file, reason: .badBlock("a CERTIFICATE block has no END line")) }
        if blocks.isEmpty { throw TrustAnchorError(file: file, reason: .noCertificate) }
        if textAfterBlock { throw TrustAnchorError(file: file, reason: .trailingGarbage) }
        return blocks
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = line
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return slice
    }

    /// Standard base64 (RFC 4648 §4) with its padding; nil for anything else.
    static func decodeBase64(_ text: [UInt8]) -> [UInt8]? {
        guard !text.isEmpty, text.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        let padding = text.suffix(2).filter { $0 == 0x3D }.count
        for start in stride(from: 0, to: text.count, by: 4) {
            let last = start + 4 == text.count
            var group: UInt32 = 0
            for offset in 0..<4 {
                let byte = text[start + offset]
                let isPad = last && offset >= 4 - padding
                guard let value = isPad ? 0 : sextet(byte) else { return nil }
                group = group << 6 | UInt32(value)
            }
            out.append(UInt8(truncatingIfNeeded: group >> 16))
            if !last || padding < 2 { out.append(UInt8(truncatingIfNeeded: group >> 8)) }
            if !last || padding < 1 { out.append(UInt8(truncatingIfNeeded: group)) }
        }
        return out
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x41...0x5A: return byte - 0x41
        case 0x61...0x7A: return byte - 0x61 + 26
        case 0x30...0x39: return byte - 0x30 + 52
        case 0x2B: return 62
        case 0x2F: return 63
        default: return nil
        }
    }
}
