/// The JWS side of `ParsedToken.parse(_:)`: the header and claims read out of a scratch buffer
/// laid out as the storage (see ParsedToken+Parsing.swift).
extension ParsedToken {
    struct HeaderFields {
        var algorithm: Text?, keyID: Text?, type: Text?
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

        /// The storage range of a string read at `content` of a JSON text starting at `offset`.
        private mutating func text(_ reader: JSONReader, _ content: Range<Int>, hasEscapes: Bool, offset: Int) -> Text {
            guard hasEscapes else {
                return Text(start: UInt32(offset + content.lowerBound), end: UInt32(offset + content.upperBound))
            }
            let unescaped = reader.unescapedBytes(content)
            precondition(textCount + unescaped.count <= text.count, "unescaped text exceeds its bound")
            let start = textStart + textCount
            for byte in unescaped {
                text[textCount] = byte
                textCount += 1
            }
            return Text(start: UInt32(start), end: UInt32(textStart + textCount))
        }

        private mutating func string(
            _ reader: inout JSONReader, offset: Int, member: @autoclosure () -> String
        ) throws(JSONError) -> Text {
            guard reader.peekKind() == .string else {
                throw JSONError("\(member()) must be a string", at: reader.position)
            }
            let scanned = try reader.readStringRange()
            return text(reader, scanned.content, hasEscapes: scanned.hasEscapes, offset: offset)
        }

        private mutating func list(
            _ reader: inout JSONReader, offset: Int, _ claim: StaticString
        ) throws(JSONError) -> List {
            let position = reader.position
            let first = tableCount
            do {
                try reader.readStringArray { (reader: inout JSONReader, content: Range<Int>, hasEscapes: Bool) in
                    append(text(reader, content, hasEscapes: hasEscapes, offset: offset))
                }
            } catch {
                if error.description.hasPrefix("expected") {
                    throw JSONError("claim \"\(claim)\" must be a non-empty array of strings", at: position)
                }
                throw error
            }
            return List(first: UInt32(first), count: UInt32(tableCount - first))
        }

        private mutating func append(_ item: Text) {
            precondition((tableCount + 1) * 8 <= table.count, "list items exceed their bound")
            table.storeBytes(of: item.start.littleEndian, toByteOffset: tableCount * 8, as: UInt32.self)
            table.storeBytes(of: item.end.littleEndian, toByteOffset: tableCount * 8 + 4, as: UInt32.self)
            tableCount += 1
        }

        /// Reads a header object. Only JSON-level problems (syntax, duplicate members) throw;
        /// wrong member values are left for the header checks.
        mutating func readHeader(_ json: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONError) -> HeaderFields {
            var header = HeaderFields()
            var reader = JSONReader(json)
            func optionalString(_ reader: inout JSONReader) throws(JSONError) -> Text? {
                guard reader.peekKind() == .string else {
                    try reader.skipValue()
                    return nil
                }
                let scanned = try reader.readStringRange()
                return text(reader, scanned.content, hasEscapes: scanned.hasEscapes, offset: offset)
            }
            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                if name.equals("alg") {
                    header.hasAlgorithmMember = true
                    header.algorithm = try optionalString(&reader)
                } else if name.equals("kid") {
                    header.hasKeyIDMember = true
                    header.keyID = try optionalString(&reader)
                } else if name.equals("typ") {
                    header.hasTypeMember = true
                    header.type = try optionalString(&reader)
                } else if name.equals("crit") {
                    header.hasCritical = true
                    try reader.skipValue()
                } else {
                    try reader.skipValue()
                }
            }
            try reader.finish()
            return header
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
                try reader.readNumericDate(member: "claim \"\(claim)\"", allowRFC3339: false)
            }

            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                switch name.decoded?.count ?? name.raw.count {
                case 2 where name.equals("ch"): channels = try list(&reader, offset: offset, "ch")
                case 3 where name.equals("iss"): issuer = try string(&reader, offset: offset, member: "claim \"iss\"")
                case 3 where name.equals("sub"): subject = try string(&reader, offset: offset, member: "claim \"sub\"")
                case 3 where name.equals("jti"): tokenID = try string(&reader, offset: offset, member: "claim \"jti\"")
                case 3 where name.equals("exp"): expiresAt = try numericDate(&reader, "exp")
                case 3 where name.equals("nbf"): notBefore = try numericDate(&reader, "nbf")
                case 3 where name.equals("iat"): issuedAt = try numericDate(&reader, "iat")
                case 3 where name.equals("cmd"): commands = try list(&reader, offset: offset, "cmd")
                case 3 where name.equals("env"):
                    let position = reader.position
                    guard reader.peekKind() == .string else {
                        throw JSONError("claim \"env\" must be a string", at: position)
                    }
                    let scanned = try reader.readStringRange()
                    guard
                        let parsed = reader.withStringBytes(
                            scanned.content, hasEscapes: scanned.hasEscapes, Environment.init(bytes:))
                    else {
                        throw JSONError("claim \"env\" must be \"int\" or \"prod\"", at: position)
                    }
                    environment = parsed
                case 3 where name.equals("aud"):
                    switch reader.peekKind() {
                    case .string:
                        let scanned = try reader.readStringRange()
                        let first = tableCount
                        append(text(reader, scanned.content, hasEscapes: scanned.hasEscapes, offset: offset))
                        audience = List(first: UInt32(first), count: 1)
                    case .array:
                        audienceIsArray = true
                        audience = try list(&reader, offset: offset, "aud")
                    default:
                        throw JSONError(
                            "claim \"aud\" must be a string or a non-empty array of strings", at: reader.position)
                    }
                case 4 where name.equals("role"): role = try string(&reader, offset: offset, member: "claim \"role\"")
                case 6 where name.equals("status"): status = try statusClaim(&reader, offset: offset)
                default:
                    try reader.skipValue()
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

        /// Reads the `status` claim (SPEC §4c): an object whose `status_list` member, when present,
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
                        uri = try string(&reader, offset: offset, member: "claim \"status\": \"status_list\" \"uri\"")
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
