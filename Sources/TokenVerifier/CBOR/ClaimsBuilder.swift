/// Reads a CWT's claims map (spec §2b) out of a scratch buffer laid out as a ``ParsedToken``'s
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

    /// The claim keys read: integers (RFC 8392) and the texts of the claims CWT has no number for.
    enum ClaimKey: Int, KnownMapKey, CaseIterable {
        case issuer, subject, audience, expiresAt, notBefore, issuedAt, tokenID, status
        case channels, commands, role, environment

        init?(integer value: Int64) {
            switch value {
            case 1: self = .issuer
            case 2: self = .subject
            case 3: self = .audience
            case 4: self = .expiresAt
            case 5: self = .notBefore
            case 6: self = .issuedAt
            case 7: self = .tokenID
            case 65535: self = .status
            default: return nil
            }
        }

        init?(text bytes: UnsafeBufferPointer<UInt8>) {
            func named(_ claim: StaticString) -> Bool { claim.withUTF8Buffer { bytesEqual($0, bytes) } }
            if named("ch") {
                self = .channels
            } else if named("cmd") {
                self = .commands
            } else if named("role") {
                self = .role
            } else if named("env") {
                self = .environment
            } else {
                return nil
            }
        }

        var bit: Int { rawValue }
    }

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

    /// Whether texts or list items did not fit their room (the read then threw).
    private(set) var overflowed = false

    /// Notes that the room given was too small; the error thrown is never shown.
    private mutating func overflow() -> CBORError {
        overflowed = true
        return CBORError("out of room", at: 0)
    }

    /// Copies `bytes` into the text region.
    mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) throws(CBORError) -> Text {
        guard textCount + bytes.count <= textCapacity else { throw overflow() }
        let start = textStart + textCount
        if bytes.count > 0 { (base + start).update(from: bytes.baseAddress!, count: bytes.count) }
        textCount += bytes.count
        return Text(start: UInt32(start), end: UInt32(start + bytes.count))
    }

    @inline(__always)
    private mutating func append(_ item: Text) throws(CBORError) {
        guard (tableCount + 1) * 8 <= table.count else { throw overflow() }
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
            try append(try text(&reader, offset: offset, claim))
        }
        return ParsedToken.List(first: UInt32(first), count: UInt32(count))
    }

    @inline(__always)
    private func numericDate(_ reader: inout CBORReader, _ claim: StaticString) throws(CBORError) -> Double {
        let position = reader.position
        let read = try reader.readNumber()
        guard let value = read, value.isFinite, NumericDate.isRepresentable(value) else {
            throw Self.numericDateError(claim, read, at: position)
        }
        return value
    }

    /// Why `value`, read at `position`, is not a NumericDate the engine represents (out of line:
    /// the valid path stays small).
    @inline(never)
    private static func numericDateError(_ claim: StaticString, _ value: Double?, at position: Int) -> CBORError {
        guard let value, value.isFinite else {
            return CBORError("claim \(claim) must be a NumericDate (an integer or a finite float)", at: position)
        }
        return CBORError(NumericDate.rangeProblem(value, what: "claim \(claim)")!, at: position)
    }

    private mutating func tokenID(_ reader: inout CBORReader, offset: Int) throws(CBORError) -> Text {
        guard reader.peekMajor() == .bytes else { return try text(&reader, offset: offset, "cti (7)") }
        let range = try reader.readByteString()
        let encoded = Base64URL.encode(UnsafeBufferPointer(rebasing: reader.bytes[range]))
        return try encoded.withUnsafeBufferPointer { (bytes) throws(CBORError) in try copy(bytes) }
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
        try reader.readMap(knowing: ClaimKey.self) { (reader: inout CBORReader, key: ClaimKey?) throws(CBORError) in
            switch key {
            case .issuer?: issuer = try text(&reader, offset: offset, "iss (1)")
            case .subject?: subject = try text(&reader, offset: offset, "sub (2)")
            case .audience?:
                if reader.peekMajor() == .array {
                    audienceIsArray = true
                    audience = try list(&reader, offset: offset, "aud (3)")
                } else {
                    let first = tableCount
                    try append(try text(&reader, offset: offset, "aud (3)"))
                    audience = ParsedToken.List(first: UInt32(first), count: 1)
                }
            case .expiresAt?: expiresAt = try numericDate(&reader, "exp (4)")
            case .notBefore?: notBefore = try numericDate(&reader, "nbf (5)")
            case .issuedAt?: issuedAt = try numericDate(&reader, "iat (6)")
            case .tokenID?: tokenID = try self.tokenID(&reader, offset: offset)
            case .status?: status = try statusClaim(&reader, offset: offset)
            case .channels?: channels = try list(&reader, offset: offset, "\"ch\"")
            case .commands?: commands = try list(&reader, offset: offset, "\"cmd\"")
            case .role?: role = try text(&reader, offset: offset, "\"role\"")
            case .environment?:
                let value = try text(&reader, offset: offset, "\"env\"")
                guard
                    let parsed = Environment(
                        bytes: UnsafeBufferPointer(start: base + Int(value.start), count: value.count))
                else {
                    throw reader.error("claim \"env\" must be \"int\" or \"prod\"")
                }
                environment = parsed
            case nil:
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

    /// Reads the `status` claim (65535, spec §4c): a map with text keys whose `"status_list"`,
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
