/// The four items of a COSE_Sign1 message (RFC 9052 §4.2), as ranges of its CBOR bytes:
/// `[protected: bstr, unprotected: map, payload: bstr, signature: bstr]`, optionally under tag 61
/// (CWT) and then tag 18 (COSE_Sign1), and under no other tag (spec §2b).
package struct COSESign1 {
    /// The protected header's bytes (the content of the bstr, as received).
    package var protected: Range<Int>
    /// Where the unprotected header map starts.
    package var unprotectedStart: Int
    /// The payload's bytes (the content of the bstr).
    package var payload: Range<Int>
    /// The signature's bytes.
    package var signature: Range<Int>

    /// Reads the message's structure; every item is checked to be well-formed, and nothing may
    /// follow it.
    package init(_ cbor: UnsafeBufferPointer<UInt8>) throws(CBORError) {
        var reader = CBORReader(cbor)
        var sawCWTTag = false
        var sawSign1Tag = false
        while reader.peekMajor() == .tag {
            let start = reader.position
            let tag = try reader.readHead().argument
            if tag == 61, !sawCWTTag, !sawSign1Tag {
                sawCWTTag = true
            } else if tag == 18, !sawSign1Tag {
                sawSign1Tag = true
            } else {
                throw reader.error("tag \(tag) is not accepted here (only 61, CWT, then 18, COSE_Sign1)", at: start)
            }
        }
        let start = reader.position
        guard reader.peekMajor() == .array, try reader.readArrayCount() == 4 else {
            throw reader.error("a COSE_Sign1 message is an array of four items", at: start)
        }
        protected = try reader.readByteString()
        unprotectedStart = reader.position
        guard reader.peekMajor() == .map else { throw reader.error("the unprotected header is not a map") }
        try reader.skipItem()
        if reader.nextIsNull { throw reader.error("the payload is detached (nil); a CWT carries its claims") }
        payload = try reader.readByteString()
        signature = try reader.readByteString()
        try reader.finish()
    }
}

/// The COSE header parameters tokenverify reads (spec §2b), from both header maps.
struct COSEHeader {
    /// `alg` (1) when an integer.
    var algorithmValue: Int64?
    /// `alg` (1) when a text string: where it lies (never supported).
    var algorithmText: Range<Int>?
    var hasAlgorithm = false
    /// `kid` (4): where its bytes lie, and in which header.
    var keyID: Range<Int>?
    var keyIDIsProtected = false
    var hasKeyID = false
    var hasCritical = false
    /// `x5chain` (33): where its CBOR item lies, and in which header (spec §3b).
    var chain: Range<Int>?
    var chainIsProtected = false
    /// `x5chain` in both headers: `bad_header` where trust anchors are configured (else ignored).
    var chainInBothHeaders = false
    /// The first problem found (`bad_header`).
    var problem: String?

    private mutating func note(_ description: String) {
        if problem == nil { problem = description }
    }

    /// Reads one header map (its labels are integers; text labels are ignored).
    mutating func read(_ reader: inout CBORReader, isProtected: Bool) throws(CBORError) {
        try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
            guard case .integer(let label) = key else { return try reader.skipItem() }
            switch label {
            case 1:
                if hasAlgorithm { note("alg (1) is in both headers") }
                if !isProtected { note("alg (1) must be in the protected header") }
                hasAlgorithm = true
                switch reader.peekMajor() {
                case .unsigned?, .negative?: algorithmValue = try reader.readInteger()
                case .text?: algorithmText = isProtected ? try reader.readTextString() : nil
                default: try reader.skipItem()
                }
                if !isProtected { algorithmText = nil }
            case 2:
                hasCritical = true
                try reader.skipItem()
            case 4:
                if hasKeyID { note("kid (4) is in both headers") }
                hasKeyID = true
                guard reader.peekMajor() == .bytes else {
                    note("kid (4) must be a byte string")
                    return try reader.skipItem()
                }
                let range = try reader.readByteString()
                if CBORReader.isValidUTF8(UnsafeBufferPointer(rebasing: reader.bytes[range])) {
                    keyID = range
                    keyIDIsProtected = isProtected
                } else {
                    note("kid (4) is not UTF-8 text")
                }
            case 16:
                try readType(&reader)
            case 33:
                if chain != nil { chainInBothHeaders = true }
                let start = reader.position
                try reader.skipItem()
                chain = start..<reader.position
                chainIsProtected = isProtected
            default:
                try reader.skipItem()
            }
        }
    }

    /// `typ` (16): `"application/cwt"` or 61.
    private mutating func readType(_ reader: inout CBORReader) throws(CBORError) {
        switch reader.peekMajor() {
        case .text?:
            let range = try reader.readTextString()
            let text = UnsafeBufferPointer(rebasing: reader.bytes[range])
            if !withUTF8(of: "application/cwt", { bytesEqual($0, text) }) {
                note(
                    "typ (16) \"\(String(decoding: text, as: UTF8.self))\" is not accepted (accepted: \"application/cwt\", 61)"
                )
            }
        case .unsigned?:
            if try reader.readInteger() != 61 { note("typ (16) is not accepted (accepted: \"application/cwt\", 61)") }
        default:
            try reader.skipItem()
            note("typ (16) must be \"application/cwt\" or 61")
        }
    }

    /// The algorithm named by an integer `alg`.
    static func algorithm(_ value: Int64) -> SignatureAlgorithm? {
        switch value {
        case -8: .edDSA
        case -19: .ed25519
        case -7: .es256
        default: nil
        }
    }
}
