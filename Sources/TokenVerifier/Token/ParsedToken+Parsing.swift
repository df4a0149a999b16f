#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension ParsedToken {
    // MARK: - Parsing

    /// Parses a token: with two dots, a compact JWS (three canonical base64url segments, a header
    /// object and a claims object of strict JSON with no duplicate member, and claims of the right
    /// types); with no dot, a CWT (``parseCOSE(_:)``).
    static func parse(_ token: UnsafeBufferPointer<UInt8>) -> Result<ParsedToken, CompactToken.ParseError> {
        func failure(_ description: String) -> Result<ParsedToken, CompactToken.ParseError> {
            .failure(CompactToken.ParseError(description: description))
        }
        guard let firstDot = firstIndex(of: UInt8(ascii: "."), in: token, from: 0) else {
            return parseCOSE(token)
        }
        guard let secondDot = firstIndex(of: UInt8(ascii: "."), in: token, from: firstDot + 1) else {
            return failure("a token has three base64url segments separated by dots; found two")
        }
        if firstIndex(of: UInt8(ascii: "."), in: token, from: secondDot + 1) != nil {
            return failure("a token has three base64url segments separated by dots; found more")
        }
        let headerSegment = UnsafeBufferPointer(rebasing: token[..<firstDot])
        let payloadSegment = UnsafeBufferPointer(rebasing: token[(firstDot + 1)..<secondDot])
        let signatureSegment = UnsafeBufferPointer(rebasing: token[(secondDot + 1)...])
        guard let headerCount = Base64URL.decodedCount(headerSegment.count) else {
            return failure("the header segment is not canonical base64url")
        }
        guard let payloadCount = Base64URL.decodedCount(payloadSegment.count) else {
            return failure("the payload segment is not canonical base64url")
        }
        guard let signatureCount = Base64URL.decodedCount(signatureSegment.count) else {
            return failure("the signature segment is not canonical base64url")
        }
        // Everything is built in one scratch buffer (on the stack when small), laid out as the
        // storage will be, then copied into the storage in one allocation. Unescaped text is
        // never longer than its escaped form, and each list item takes at least three bytes of
        // the claims JSON (`"",`), so the two last regions cannot overflow.
        let decodedCount = signatureCount + headerCount + payloadCount
        let textCapacity = headerCount + payloadCount
        let tableCapacity = (payloadCount / 3 + 2) * 8
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: decodedCount + textCapacity + tableCapacity) { scratch in
            let base = scratch.baseAddress!
            guard Base64URL.decode(signatureSegment, into: UnsafeMutableBufferPointer(start: base, count: signatureCount)) != nil else {
                return failure("the signature segment is not canonical base64url")
            }
            let headerStart = signatureCount
            guard Base64URL.decode(headerSegment, into: UnsafeMutableBufferPointer(start: base + headerStart, count: headerCount)) != nil else {
                return failure("the header segment is not canonical base64url")
            }
            let payloadStart = headerStart + headerCount
            guard Base64URL.decode(payloadSegment, into: UnsafeMutableBufferPointer(start: base + payloadStart, count: payloadCount)) != nil else {
                return failure("the payload segment is not canonical base64url")
            }
            var builder = Builder(text: UnsafeMutableBufferPointer(start: base + decodedCount, count: textCapacity),
                                  textStart: decodedCount,
                                  table: UnsafeMutableRawBufferPointer(start: base + decodedCount + textCapacity, count: tableCapacity))
            var header = HeaderFields()
            do throws(JSONError) {
                header = try builder.readHeader(UnsafeBufferPointer(start: base + headerStart, count: headerCount), at: headerStart)
            } catch {
                return failure("the header is not a valid JSON object: \(error.description)")
            }
            let claims: ClaimFields
            do throws(JSONError) {
                claims = try builder.readClaims(UnsafeBufferPointer(start: base + payloadStart, count: payloadCount), at: payloadStart)
            } catch {
                return failure("the claims are not valid: \(error.description)")
            }
            // The scratch is laid out as the storage, so a range of one is a range of the other.
            let supportedAlgorithm = header.algorithm.flatMap {
                SignatureAlgorithm(bytes: UnsafeBufferPointer(start: base + Int($0.start), count: $0.count))
            }
            let textCount = builder.textCount
            let storage = storage(from: base, fixedCount: decodedCount, textCount: textCount, textCapacity: textCapacity,
                                  tableBytes: builder.tableCount * 8)
            return .success(ParsedToken(
                storage: storage, tableStart: UInt32(decodedCount + textCount),
                signature: Text(start: 0, end: UInt32(signatureCount)), signingInputLength: secondDot,
                algorithm: header.algorithm, keyID: header.keyID, type: header.type,
                hasAlgorithmMember: header.hasAlgorithmMember, hasKeyIDMember: header.hasKeyIDMember,
                hasTypeMember: header.hasTypeMember, hasCritical: header.hasCritical,
                supportedAlgorithm: supportedAlgorithm,
                issuer: claims.issuer, subject: claims.subject, tokenID: claims.tokenID, role: claims.role,
                audience: claims.audience, audienceIsArray: claims.audienceIsArray,
                channels: claims.channels, commands: claims.commands,
                expiresAt: claims.expiresAt, notBefore: claims.notBefore, issuedAt: claims.issuedAt,
                environment: claims.environment, status: claims.status))
        }
    }

    /// The storage made from a scratch buffer laid out as `fixedCount` bytes, `textCount` bytes
    /// of texts in room for `textCapacity`, then the item table: one allocation, the gap dropped.
    static func storage(from base: UnsafeMutablePointer<UInt8>, fixedCount: Int, textCount: Int, textCapacity: Int,
                        tableBytes: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: max(1, fixedCount + textCount + tableBytes)) { out, initialized in
            let target = out.baseAddress!
            target.update(from: base, count: fixedCount + textCount)
            (target + fixedCount + textCount).update(from: base + fixedCount + textCapacity, count: tableBytes)
            initialized = fixedCount + textCount + tableBytes
        }
    }

    private struct HeaderFields {
        var algorithm: Text?, keyID: Text?, type: Text?
        var hasAlgorithmMember = false, hasKeyIDMember = false, hasTypeMember = false, hasCritical = false
    }

    private struct ClaimFields {
        var issuer: Text, subject: Text, tokenID: Text, role: Text?
        var audience: List, audienceIsArray: Bool, channels: List, commands: List
        var expiresAt: Double, notBefore: Double?, issuedAt: Double?
        var environment: Environment?
        var status: StatusReference?
    }

    /// Reads the header and the claims out of the scratch buffer, noting where each string lies.
    private struct Builder {
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

        private mutating func string(_ reader: inout JSONReader, offset: Int, member: @autoclosure () -> String) throws(JSONError) -> Text {
            guard reader.peekKind() == .string else { throw JSONError("\(member()) must be a string", at: reader.position) }
            let scanned = try reader.readStringRange()
            return text(reader, scanned.content, hasEscapes: scanned.hasEscapes, offset: offset)
        }

        private mutating func list(_ reader: inout JSONReader, offset: Int, _ claim: StaticString) throws(JSONError) -> List {
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
            var issuer: Text?, subject: Text?, tokenID: Text?, role: Text?
            var audience: List?, channels: List?, commands: List?
            var audienceIsArray = false
            var expiresAt: Double?, notBefore: Double?, issuedAt: Double?
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
                    guard reader.peekKind() == .string else { throw JSONError("claim \"env\" must be a string", at: position) }
                    let scanned = try reader.readStringRange()
                    guard let parsed = reader.withStringBytes(scanned.content, hasEscapes: scanned.hasEscapes, Environment.init(bytes:)) else {
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
                        throw JSONError("claim \"aud\" must be a string or a non-empty array of strings", at: reader.position)
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
            return ClaimFields(issuer: issuer, subject: subject, tokenID: tokenID, role: role,
                               audience: audience, audienceIsArray: audienceIsArray, channels: channels, commands: commands,
                               expiresAt: expiresAt, notBefore: notBefore, issuedAt: issuedAt, environment: environment,
                               status: status)
        }

        /// Reads the `status` claim (SPEC §4c): an object whose `status_list` member, when present,
        /// is `{"idx": non-negative integer, "uri": string}`; other members are only checked to be
        /// well-formed.
        private mutating func statusClaim(_ reader: inout JSONReader, offset: Int) throws(JSONError) -> StatusReference? {
            guard reader.peekKind() == .object else { throw JSONError("claim \"status\" must be an object", at: reader.position) }
            var reference: StatusReference?
            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                guard name.equals("status_list") else {
                    try reader.skipValue()
                    return
                }
                let position = reader.position
                guard reader.peekKind() == .object else {
                    throw JSONError("claim \"status\": \"status_list\" must be an object {\"idx\", \"uri\"}", at: position)
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
extension TokenHeader {
    /// The header of a parsed token.
    init(_ token: ParsedToken) {
        self.init(algorithm: token.algorithm.map(token.string), keyID: token.keyID.map(token.string),
                  type: token.type.map(token.string), hasAlgorithmMember: token.hasAlgorithmMember,
                  hasKeyIDMember: token.hasKeyIDMember, hasTypeMember: token.hasTypeMember, hasCritical: token.hasCritical)
    }
}

extension TokenClaims {
    /// The claims of a parsed token.
    init(_ token: ParsedToken) {
        self.init(issuer: token.string(token.issuer), subject: token.string(token.subject),
                  audience: token.strings(token.audience), audienceIsArray: token.audienceIsArray,
                  tokenID: token.string(token.tokenID), expiresAt: token.expiresAt, notBefore: token.notBefore,
                  issuedAt: token.issuedAt, environment: token.environment, channels: token.strings(token.channels),
                  commands: token.strings(token.commands), role: token.role.map(token.string))
    }
}

extension SignatureAlgorithm {
    /// The algorithm named exactly by `bytes`.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard let match = Self.allCases.first(where: { algorithm in withUTF8(of: algorithm.rawValue) { bytesEqual($0, bytes) } }) else {
            return nil
        }
        self = match
    }
}

extension Environment {
    /// The environment named exactly by `bytes`.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard let match = Self.allCases.first(where: { environment in withUTF8(of: environment.rawValue) { bytesEqual($0, bytes) } }) else {
            return nil
        }
        self = match
    }
}
