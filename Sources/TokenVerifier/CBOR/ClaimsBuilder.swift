/// Reads a CWT's claims map (SPEC §2b) out of a scratch buffer laid out as a ``ParsedToken``'s
/// storage, noting where each text lies and making the texts that are not in it (a bstr `cti`'s
/// base64url).
struct ClaimsBuilder {
    /// The claims, type-checked.
    struct Claims {
        var issuer: ParsedToken.Text, subject: ParsedToken.Text, tokenID: ParsedToken.Text, role: ParsedToken.Text?
        var audience: ParsedToken.List, audienceIsArray: Bool, channels: ParsedToken.List, commands: ParsedToken.List
        var expiresAt: Double, notBefore: Double?, issuedAt: Double?
        var environment: Environment?
        var status: ParsedToken.StatusReference?
    }

    typealias Text = ParsedToken.Text

    /// The scratch buffer; texts made here land at `textStart`.
    let base: UnsafeMutablePointer<UInt8>
    let textStart: Int
    let textCapacity: Int
    private(set) var textCount = 0
    /// Room for the item table.
    let table: UnsafeMutableRawBufferPointer
    private(set) var tableCount = 0

    init(base: UnsafeMutablePointer<UInt8>, textStart: Int, textCapacity: Int, table: UnsafeMutableRawBufferPointer) {
        self.base = base
        self.textStart = textStart
        self.textCapacity = textCapacity
        self.table = table
    }

    /// Copies `bytes` into the text region.
    mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> Text {
        precondition(textCount + bytes.count <= textCapacity, "texts exceed their bound")
        let start = textStart + textCount
        if bytes.count > 0 { (base + start).update(from: bytes.baseAddress!, count: bytes.count) }
        textCount += bytes.count
        return Text(start: UInt32(start), end: UInt32(start + bytes.count))
    }

    private mutating func append(_ item: Text) {
        precondition((tableCount + 1) * 8 <= table.count, "list items exceed their bound")
        table.storeBytes(of: item.start.littleEndian, toByteOffset: tableCount * 8, as: UInt32.self)
        table.storeBytes(of: item.end.littleEndian, toByteOffset: tableCount * 8 + 4, as: UInt32.self)
        tableCount += 1
    }

    private func text(_ reader: inout CBORReader, offset: Int, _ claim: StaticString) throws(CBORError) -> Text {
        guard reader.peekMajor() == .text else { throw reader.error("claim \(claim) must be a text string") }
        let range = try reader.readTextString()
        return Text(start: UInt32(offset + range.lowerBound), end: UInt32(offset + range.upperBound))
    }

    private mutating func list(
        _ reader: inout CBORReader, offset: Int, _ claim: StaticString
    ) throws(CBORError) -> ParsedToken.List {
        // Made only when thrown: a string interpolation costs more than reading the list.
        let position = reader.position
        func wrong() -> CBORError {
            CBORError("claim \(claim) must be a non-empty array of text strings", at: position)
        }
        guard reader.peekMajor() == .array else { throw wrong() }
        let count = try reader.readArrayCount()
        guard count > 0 else { throw wrong() }
        let first = tableCount
        for _ in 0..<count {
            guard reader.peekMajor() == .text else { throw wrong() }
            append(try text(&reader, offset: offset, claim))
        }
        return ParsedToken.List(first: UInt32(first), count: UInt32(count))
    }

    private func numericDate(_ reader: inout CBORReader, _ claim: StaticString) throws(CBORError) -> Double {
        let position = reader.position
        guard let value = try reader.readNumber(), value.isFinite else {
            throw CBORError("claim \(claim) must be a NumericDate (an integer or a finite float)", at: position)
        }
        return value
    }

    private mutating func tokenID(_ reader: inout CBORReader, offset: Int) throws(CBORError) -> Text {
        guard reader.peekMajor() == .bytes else { return try text(&reader, offset: offset, "cti (7)") }
        let range = try reader.readByteString()
        let encoded = Base64URL.encode(UnsafeBufferPointer(rebasing: reader.bytes[range]))
        return encoded.withUnsafeBufferPointer { copy($0) }
    }

    /// Reads and type-checks the claims map. Throws for bad CBOR, a duplicate key, a missing
    /// required claim or a claim of the wrong type; other claims are only checked to be well-formed.
    mutating func readClaims(_ reader: inout CBORReader, offset: Int) throws(CBORError) -> Claims {
        var issuer: Text?
        var subject: Text?
        var tokenID: Text?
        var role: Text?
        var audience: ParsedToken.List?
        var channels: ParsedToken.List?
        var commands: ParsedToken.List?
        var audienceIsArray = false
        var expiresAt: Double?
        var notBefore: Double?
        var issuedAt: Double?
        var environment: Environment?
        var status: ParsedToken.StatusReference?
        guard reader.peekMajor() == .map else { throw reader.error("the claims are not a CBOR map") }
        try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
            switch key {
            case .integer(1): issuer = try text(&reader, offset: offset, "iss (1)")
            case .integer(2): subject = try text(&reader, offset: offset, "sub (2)")
            case .integer(3):
                if reader.peekMajor() == .array {
                    audienceIsArray = true
                    audience = try list(&reader, offset: offset, "aud (3)")
                } else {
                    let first = tableCount
                    append(try text(&reader, offset: offset, "aud (3)"))
                    audience = ParsedToken.List(first: UInt32(first), count: 1)
                }
            case .integer(4): expiresAt = try numericDate(&reader, "exp (4)")
            case .integer(5): notBefore = try numericDate(&reader, "nbf (5)")
            case .integer(6): issuedAt = try numericDate(&reader, "iat (6)")
            case .integer(7): tokenID = try self.tokenID(&reader, offset: offset)
            case .integer(65535): status = try statusClaim(&reader, offset: offset)
            case .text(let range):
                let name = UnsafeBufferPointer(rebasing: reader.bytes[range])
                func named(_ claim: String) -> Bool { withUTF8(of: claim) { bytesEqual($0, name) } }
                if named("ch") {
                    channels = try list(&reader, offset: offset, "\"ch\"")
                } else if named("cmd") {
                    commands = try list(&reader, offset: offset, "\"cmd\"")
                } else if named("role") {
                    role = try text(&reader, offset: offset, "\"role\"")
                } else if named("env") {
                    let value = try text(&reader, offset: offset, "\"env\"")
                    guard
                        let parsed = Environment(
                            bytes: UnsafeBufferPointer(start: base + Int(value.start), count: value.count))
                    else {
                        throw reader.error("claim \"env\" must be \"int\" or \"prod\"")
                    }
                    environment = parsed
                } else {
                    try reader.skipItem()
                }
            default:
                try reader.skipItem()
            }
        }
        func missing(_ claim: StaticString) -> CBORError { CBORError("required claim \(claim) is missing", at: 0) }
        guard let issuer else { throw missing("iss (1)") }
        guard let subject else { throw missing("sub (2)") }
        guard let audience else { throw missing("aud (3)") }
        guard let tokenID else { throw missing("cti (7)") }
        guard let expiresAt else { throw missing("exp (4)") }
        guard let channels else { throw missing("\"ch\"") }
        guard let commands else { throw missing("\"cmd\"") }
        return Claims(
            issuer: issuer, subject: subject, tokenID: tokenID, role: role,
            audience: audience, audienceIsArray: audienceIsArray, channels: channels, commands: commands,
            expiresAt: expiresAt, notBefore: notBefore, issuedAt: issuedAt, environment: environment,
            status: status)
    }

    /// Reads the `status` claim (65535, SPEC §4c): a map with text keys whose `"status_list"`,
    /// when present, is `{"idx": uint, "uri": tstr}`; other entries are only checked to be well-formed.
    private func statusClaim(_ reader: inout CBORReader, offset: Int) throws(CBORError) -> ParsedToken.StatusReference?
    {
        guard reader.peekMajor() == .map else { throw reader.error("claim status (65535) must be a map") }
        var reference: ParsedToken.StatusReference?
        try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
            guard case .text(let range) = key,
                withUTF8(of: "status_list", { bytesEqual($0, UnsafeBufferPointer(rebasing: reader.bytes[range])) })
            else {
                return try reader.skipItem()
            }
            let position = reader.position
            func wrong() -> CBORError {
                CBORError(
                    "claim status (65535): \"status_list\" must be a map {\"idx\": uint, \"uri\": text}", at: position)
            }
            guard reader.peekMajor() == .map else { throw wrong() }
            var index: UInt64?
            var uri: Text?
            try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
                guard case .text(let range) = key else { return try reader.skipItem() }
                let name = UnsafeBufferPointer(rebasing: reader.bytes[range])
                if withUTF8(of: "idx", { bytesEqual($0, name) }) {
                    guard reader.peekMajor() == .unsigned else { throw wrong() }
                    index = try reader.readHead().argument
                } else if withUTF8(of: "uri", { bytesEqual($0, name) }) {
                    guard reader.peekMajor() == .text else { throw wrong() }
                    uri = try text(&reader, offset: offset, "status_list uri")
                } else {
                    try reader.skipItem()
                }
            }
            guard let index, let uri else { throw wrong() }
            reference = ParsedToken.StatusReference(index: index, uri: uri)
        }
        return reference
    }
}
