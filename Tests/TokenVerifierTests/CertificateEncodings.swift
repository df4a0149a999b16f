import Foundation

/// Other encodings of one certificate, made byte by byte here (independently of CTokenX509), for
/// the re-encoding tests (spec §3b): the ECDSA twin, whose signature (r, s) becomes (r, n − s), and
/// BER long-form lengths in the outer SEQUENCE or in the tbsCertificate.
enum CertificateEncodings {
    /// The order n of P-256, big-endian.
    static let p256Order: [UInt8] = hex("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")

    /// One TLV: its tag, where its content starts and ends.
    struct Item {
        let tag: UInt8
        let start: Int
        let content: Range<Int>
        var end: Int { content.upperBound }
    }

    /// The TLV at `index` of `bytes` (definite lengths, short or long form).
    static func item(_ bytes: [UInt8], at index: Int) -> Item {
        let first = Int(bytes[index + 1])
        var length = first
        var header = 2
        if first >= 0x80 {
            length = 0
            for offset in 0..<(first & 0x7F) { length = length << 8 | Int(bytes[index + 2 + offset]) }
            header += first & 0x7F
        }
        return Item(tag: bytes[index], start: index, content: (index + header)..<(index + header + length))
    }

    /// The DER length octets of `length`.
    static func length(_ length: Int) -> [UInt8] {
        guard length >= 0x80 else { return [UInt8(length)] }
        var octets: [UInt8] = []
        var rest = length
        while rest > 0 {
            octets.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }

    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }

    /// A minimal DER INTEGER of the unsigned big-endian `magnitude`.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(0x02, bytes)
    }

    /// `a − b` of big-endian unsigned numbers (a ≥ b), as many bytes as `a`.
    static func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        let b = [UInt8](repeating: 0, count: max(0, a.count - b.count)) + b.drop { $0 == 0 && b.count > a.count }
        var out = [UInt8](repeating: 0, count: a.count)
        var borrow = 0
        for index in stride(from: a.count - 1, through: 0, by: -1) {
            var digit = Int(a[index]) - Int(b[index]) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            out[index] = UInt8(digit)
        }
        return out
    }

    /// The same certificate with its ECDSA signature (r, s) replaced by (r, `order` − s).
    static func twin(_ der: [UInt8], order: [UInt8] = p256Order) -> [UInt8] {
        let outer = item(der, at: 0)
        let tbs = item(der, at: outer.content.lowerBound)
        let algorithm = item(der, at: tbs.end)
        let signature = item(der, at: algorithm.end)
        // BIT STRING: 0 unused bits, then ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }.
        let value = item(der, at: signature.content.lowerBound + 1)
        let r = item(der, at: value.content.lowerBound)
        let s = item(der, at: r.end)
        let twinS = subtract(order, Array(der[s.content]))
        let sequence = tlv(0x30, Array(der[r.start..<r.end]) + integer(twinS))
        let bitString = tlv(0x03, [0] + sequence)
        return tlv(0x30, Array(der[tbs.start..<algorithm.end]) + bitString)
    }

    /// A TLV whose length is in long form with one octet more than DER allows (a leading zero).
    static func longForm(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var octets: [UInt8] = []
        var rest = content.count
        repeat {
            octets.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        } while rest > 0
        return [tag, 0x80 | UInt8(octets.count + 1), 0] + octets + content
    }

    /// The certificate with its outer SEQUENCE's length in BER long form.
    static func outerLongForm(_ der: [UInt8]) -> [UInt8] {
        longForm(0x30, Array(der[item(der, at: 0).content]))
    }

    /// The certificate with its tbsCertificate's length in BER long form (the outer one DER).
    static func tbsLongForm(_ der: [UInt8]) -> [UInt8] {
        let outer = item(der, at: 0)
        let tbs = item(der, at: outer.content.lowerBound)
        return tlv(0x30, longForm(0x30, Array(der[tbs.content])) + Array(der[tbs.end..<outer.end]))
    }

    /// A PEM CERTIFICATE block of `der`.
    static func pem(_ der: [UInt8]) -> String {
        "-----BEGIN CERTIFICATE-----\n" + Data(der).base64EncodedString(options: .lineLength64Characters)
            + "\n-----END CERTIFICATE-----\n"
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
