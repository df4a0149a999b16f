/// The JWS side of `ParsedToken.parse(_:)`: the header and claims read out of a scratch buffer
/// laid out as the storage (see ParsedToken+Parsing.swift).
extension ParsedToken {
    struct HeaderFields {
        var algorithm: Text?, keyID: Text?, type: Text?
        /// `x5c`'s value as it is written (spec §3b): judged only where trust anchors are configured.
        var chain: Text?
        var hasAlgorithmMember = false, hasKeyIDMember = false, hasTypeMember = false, hasCritical = false
    }

    struct ClaimFields {
        var issuer: Text, subject: Text, tokenID: Text, role: Text?
        var audience: List, audienceIsArray: Bool, channels: List, commands: List
        var expiresAt: Double, notBefore: Double?, issuedAt: Double?
        var environment: Environment?
        var status: StatusReference?
    }

    /// Reads a JWS header and claims out of the scratch buffer, noting where each string lies.
    struct JSONBuilder {
        /// Room for unescaped text, which lands at `textStart` in the storage.
        let text: UnsafeMutableBufferPointer<UInt8>
        let textStart: Int
        private(set) var textCount = 0
        /// Room for the item table.
        let table: UnsafeMutableRawBufferPointer
        private(set) var tableCount = 0

        init(text: UnsafeMutableBufferPointer<UInt8>, textStart: Int, table: UnsafeMutableRawBufferPointer) {
            self.text = text
            self.textStart = textStart
            self.table = table
        }

        /// Whether texts or list items did not fit their room (the read then threw).
        private(set) var overflowed = false

        /// The storage range of a string read at `content` of a JSON text starting at `offset`.
        @inline(__always)
        private mutating func text(
            _ reader: JSONReader, _ content: Range<Int>, hasEscapes: Bool, offset: Int
        ) throws(JSONError) -> Text {
            guard hasEscapes else {
                return Text(start: UInt32(offset + content.lowerBound), end: UInt32(offset + content.upperBound))
            }
            return try unescapedText(reader, content)
        }

        /// Unescapes the string at `content` into the text region.
        private mutating func unescapedText(_ reader: JSONReader, _ content: Range<Int>) throws(JSONError) -> Text {
            let unescaped = reader.unescapedBytes(content)
            guard textCount + unescaped.count <= text.count else { throw overflow() }
            let start = textStart + textCount
            for byte in unescaped {
                text[textCount] = byte
                textCount += 1
            }
            return Text(start: UInt32(start), end: UInt32(textStart + textCount))
        }

        /// Notes that the room given was too small; the error thrown is never shown.
        private mutating func overflow() -> JSONError {
            overflowed = true
            return JSONError("out of room", at: 0)
        }

        /// Reads a value that must be a string; `member` names it in the error (`claim "sub"`).
        private mutating func string(
            _ reader: inout JSONReader, offset: Int, member: StaticString
        ) throws(JSONError) -> Text {
            reader.skipWhitespace()
            guard reader.nextIs(UInt8(ascii: "\"")) else {
                throw JSONError("\(member) must be a string", at: reader.position)
            }
            let scanned = try reader.scanString()
            return try text(reader, scanned.content, hasEscapes: scanned.hasEscapes, offset: offset)
        }

        /// Reads a non-empty array of strings into the item table.
        private mutating func list(
            _ reader: inout JSONReader, offset: Int, _ claim: StaticString
        ) throws(JSONError) -> List {
            let position = reader.position
            @inline(never)
            func wrong() -> JSONError {
                JSONError("claim \"\(claim)\" must be a non-empty array of strings", at: position)
            }
            reader.skipWhitespace()
            guard reader.nextIs(UInt8(ascii: "[")) else { throw wrong() }
            reader.position += 1
            let first = tableCount
            // An array of strings nests nothing, so the depth it adds is never checked.
            repeat {
                reader.skipWhitespace()
                guard reader.nextIs(UInt8(ascii: "\"")) else { throw wrong() }
                let scanned = try reader.scanString()
                try append(try text(reader, scanned.content, hasEscapes: scanned.hasEscapes, offset: offset))
            } while try !reader.endOfItem(closedBy: UInt8(ascii: "]"))
            return List(first: UInt32(first), count: UInt32(tableCount - first))
        }

        @inline(__always)
        private mutating func append(_ item: Text) throws(JSONError) {
            guard (tableCount + 1) * 8 <= table.count else { throw overflow() }
            table.storeBytes(of: item.start.littleEndian, toByteOffset: tableCount * 8, as: UInt32.self)
            table.storeBytes(of: item.end.littleEndian, toByteOffset: tableCount * 8 + 4, as: UInt32.self)
            tableCount += 1
        }

        /// The header members read.
        enum HeaderName: Int, KnownMemberName, CaseIterable {
            case algorithm, keyID, type, critical, chain

            init?(quoted word: UInt64) {
                switch word & 0xFF_FFFF_FFFF {  // a quote, three bytes, a quote
                case 0x22_676c_6122: self = .algorithm  // "alg"
                case 0x22_6469_6b22: self = .keyID  // "kid"
                case 0x22_7079_7422: self = .type  // "typ"
                case 0x22_6335_7822: self = .chain  // "x5c"
                default:
                    guard word & 0xFFFF_FFFF_FFFF == 0x2274_6972_6322 else { return nil }  // "crit"
                    self = .critical
                }
            }

            var name: StaticString {
                switch self {
                case .algorithm: "alg"
                case .keyID: "kid"
                case .type: "typ"
                case .critical: "crit"
                case .chain: "x5c"
                }
            }

            var count: Int { self == .critical ? 4 : 3 }
            var bit: Int { rawValue }
        }

        /// Reads a header object. Only JSON-level problems (syntax, duplicate members) throw;
        /// wrong member values are left for the header checks.
        mutating func readHeader(_ json: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONError) -> HeaderFields {
            var header = HeaderFields()
            var reader = JSONReader(json)
            func optionalString(_ reader: inout JSONReader) throws(JSONError) -> Text? {
                reader.skipWhitespace()
                guard reader.nextIs(UInt8(ascii: "\"")) else {
                    try reader.skipValue()
                    return nil
                }
                let scanned = try reader.scanString()
                return try text(reader, scanned.content, hasEscapes: scanned.hasEscapes, offset: offset)
            }
            try reader.readObject(knowing: HeaderName.self) {
                (reader: inout JSONReader, name: HeaderName?) throws(JSONError) in
                switch name {
                case .algorithm?:
                    header.hasAlgorithmMember = true
                    header.algorithm = try optionalString(&reader)
                case .keyID?:
                    header.hasKeyIDMember = true
                    header.keyID = try optionalString(&reader)
                case .type?:
                    header.hasTypeMember = true
                    header.type = try optionalString(&reader)
                case .critical?:
                    header.hasCritical = true
                    try reader.skipValue()
                case .chain?:
                    header.chain = try Self.chainValue(&reader, offset: offset)
                case nil:
                    try reader.skipValue()
                }
            }
            try reader.finish()
            return header
        }

        /// Where `x5c`'s value lies (its JSON as written; read only with trust anchors, spec §3b).
        /// Out of line: a rare member's code stays out of the header loop.
        @inline(never)
        static func chainValue(_ reader: inout JSONReader, offset: Int) throws(JSONError) -> Text {
            reader.skipWhitespace()
            let range = try reader.skipValue()
            return Text(start: UInt32(offset + range.lowerBound), end: UInt32(offset + range.upperBound))
        }

        /// The claim names read.
        enum ClaimName: Int, KnownMemberName, CaseIterable {
            case issuer, subject, audience, tokenID, expiresAt, notBefore, issuedAt, environment
            case channels, commands, role, status

            init?(quoted word: UInt64) {
                switch word & 0xFF_FFFF_FFFF {  // a quote, three bytes, a quote
                case 0x22_7373_6922: self = .issuer  // "iss"
                case 0x22_6275_7322: self = .subject  // "sub"
                case 0x22_6475_6122: self = .audience  // "aud"
                case 0x22_6974_6a22: self = .tokenID  // "jti"
                case 0x22_7078_6522: self = .expiresAt  // "exp"
                case 0x22_6662_6e22: self = .notBefore  // "nbf"
                case 0x22_7461_6922: self = .issuedAt  // "iat"
                case 0x22_766e_6522: self = .environment  // "env"
                case 0x22_646d_6322: self = .commands  // "cmd"
                default:
                    if word & 0xFFFF_FFFF == 0x2268_6322 {  // "ch"
                        self = .channels
                    } else if word & 0xFFFF_FFFF_FFFF == 0x2265_6c6f_7222 {  // "role"
                        self = .role
                    } else if word == 0x2273_7574_6174_7322 {  // "status"
                        self = .status
                    } else {
                        return nil
                    }
                }
            }

            var name: StaticString {
                switch self {
                case .issuer: "iss"
                case .subject: "sub"
                case .audience: "aud"
                case .tokenID: "jti"
                case .expiresAt: "exp"
                case .notBefore: "nbf"
                case .issuedAt: "iat"
                case .environment: "env"
                case .channels: "ch"
                case .commands: "cmd"
                case .role: "role"
                case .status: "status"
                }
            }

            var count: Int {
                switch self {
                case .channels: 2
                case .role: 4
                case .status: 6
                default: 3
                }
            }

            var bit: Int { rawValue }
        }

        /// Reads and type-checks a claims object. Throws for bad JSON, duplicate members, a
        /// missing required claim or a claim of the wrong type.
        mutating func readClaims(_ json: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONError) -> ClaimFields {
            var issuer: Text?
            var subject: Text?
            var tokenID: Text?
            var role: Text?
            var audience: List?
            var channels: List?
            var commands: List?
            var audienceIsArray = false
            var expiresAt: Double?
            var notBefore: Double?
            var issuedAt: Double?
            var environment: Environment?
            var status: StatusReference?
            var reader = JSONReader(json)

            func numericDate(_ reader: inout JSONReader, _ claim: StaticString) throws(JSONError) -> Double {
                let offset = reader.position
                if let value = reader.readPlainInteger() {
                    // 1 to 15 digits: positive, so only the upper bound can be passed.
                    guard value <= NumericDate.latest else {
                        throw JSONError(NumericDate.rangeProblem(value, what: "claim \"\(claim)\"")!, at: offset)
                    }
                    return value
                }
                return try reader.readNumericDate(member: "claim \"\(claim)\"", allowRFC3339: false)
            }

            try reader.readObject(knowing: ClaimName.self) {
                (reader: inout JSONReader, name: ClaimName?) throws(JSONError) in
                switch name {
                case .channels?: channels = try list(&reader, offset: offset, "ch")
                case .issuer?: issuer = try string(&reader, offset: offset, member: "claim \"iss\"")
                case .subject?: subject = try string(&reader, offset: offset, member: "claim \"sub\"")
                case .tokenID?: tokenID = try string(&reader, offset: offset, member: "claim \"jti\"")
                case .expiresAt?: expiresAt = try numericDate(&reader, "exp")
                case .notBefore?: notBefore = try numericDate(&reader, "nbf")
                case .issuedAt?: issuedAt = try numericDate(&reader, "iat")
                case .commands?: commands = try list(&reader, offset: offset, "cmd")
                case .environment?:
                    let position = reader.position
                    reader.skipWhitespace()
                    guard reader.nextIs(UInt8(ascii: "\"")) else {
                        throw JSONError("claim \"env\" must be a string", at: position)
                    }
                    let scanned = try reader.scanString()
                    guard
                        let parsed = reader.withStringBytes(
                            scanned.content, hasEscapes: scanned.hasEscapes, Environment.init(bytes:))
                    else {
                        throw JSONError("claim \"env\" must be \"int\" or \"prod\"", at: position)
                    }
                    environment = parsed
                case .audience?:
                    reader.skipWhitespace()
                    if reader.nextIs(UInt8(ascii: "\"")) {
                        let scanned = try reader.scanString()
                        let first = tableCount
                        try append(try text(reader, scanned.content, hasEscapes: scanned.hasEscapes, offset: offset))
                        audience = List(first: UInt32(first), count: 1)
                    } else if reader.nextIs(UInt8(ascii: "[")) {
                        audienceIsArray = true
                        audience = try list(&reader, offset: offset, "aud")
                    } else {
                        throw JSONError(
                            "claim \"aud\" must be a string or a non-empty array of strings", at: reader.position)
                    }
                case .role?: role = try string(&reader, offset: offset, member: "claim \"role\"")
                case .status?: status = try statusClaim(&reader, offset: offset)
                case nil: try reader.skipValue()
                }
            }
            try reader.finish()

            guard let issuer else { throw JSONError("required claim \"iss\" is missing", at: 0) }
            guard let subject else { throw JSONError("required claim \"sub\" is missing", at: 0) }
            guard let audience else { throw JSONError("required claim \"aud\" is missing", at: 0) }
            guard let tokenID else { throw JSONError("required claim \"jti\" is missing", at: 0) }
            guard let expiresAt else { throw JSONError("required claim \"exp\" is missing", at: 0) }
            guard let channels else { throw JSONError("required claim \"ch\" is missing", at: 0) }
            guard let commands else { throw JSONError("required claim \"cmd\" is missing", at: 0) }
            return ClaimFields(
                issuer: issuer, subject: subject, tokenID: tokenID, role: role,
                audience: audience, audienceIsArray: audienceIsArray, channels: channels, commands: commands,
                expiresAt: expiresAt, notBefore: notBefore, issuedAt: issuedAt, environment: environment,
                status: status)
        }

        /// Reads the `status` claim (spec §4c): an object whose `status_list` member, when present,
        /// is `{"idx": non-negative integer, "uri": string}`; other members are only checked to be
        /// well-formed.
        private mutating func statusClaim(_ reader: inout JSONReader, offset: Int) throws(JSONError) -> StatusReference?
        {
            guard reader.peekKind() == .object else {
                throw JSONError("claim \"status\" must be an object", at: reader.position)
            }
            var reference: StatusReference?
            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                guard name.equals("status_list") else {
                    try reader.skipValue()
                    return
                }
                let position = reader.position
                guard reader.peekKind() == .object else {
                    throw JSONError(
                        "claim \"status\": \"status_list\" must be an object {\"idx\", \"uri\"}", at: position)
                }
                var index: UInt64?
                var uri: Text?
                try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                    if name.equals("idx") {
                        index = try reader.readIndex(member: "claim \"status\": \"status_list\" \"idx\"")
                    } else if name.equals("uri") {
                        uri = try string(
                            &reader, offset: offset, member: "claim \"status\": \"status_list\" \"uri\"")
                    } else {
                        try reader.skipValue()
                    }
                }
                guard let index, let uri else {
                    throw JSONError("claim \"status\": \"status_list\" needs \"idx\" and \"uri\"", at: position)
                }
                reference = StatusReference(index: index, uri: uri)
            }
            return reference
        }
    }
}
