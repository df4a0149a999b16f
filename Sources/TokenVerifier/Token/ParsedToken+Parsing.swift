#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension ParsedToken {
    // MARK: - Parsing

    /// Parses a token: with two dots, a compact JWS (three canonical base64url segments, a header
    /// object and a claims object of strict JSON with no duplicate member, and claims of the right
    /// types); with no dot, a CWT (``parseCOSE(_:)``). A JWS whose header segment is the one
    /// `headerMemo` keeps takes its header from there (see ``JWSHeaderMemo``).
    static func parse(
        _ token: UnsafeBufferPointer<UInt8>, headerMemo: JWSHeaderMemo? = nil
    ) -> Result<ParsedToken, CompactToken.ParseError> {
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
        // Everything is built in one scratch buffer, laid out as the storage will be, then
        // copied into the storage in one allocation. Unescaped text is never longer than its
        // escaped form, and each list item takes at least three bytes of the claims JSON
        // (`"",`), so regions of those sizes cannot overflow. A usual token fits a scratch on
        // the stack with smaller regions; one that overflows them is parsed again with the
        // full regions, on the heap.
        let segments = JWSSegments(
            headerSegment: headerSegment, payloadSegment: payloadSegment, signatureSegment: signatureSegment,
            headerCount: headerCount, payloadCount: payloadCount, signatureCount: signatureCount,
            signingInputLength: secondDot, headerMemo: headerMemo)
        let decodedCount = segments.decodedCount
        let textCapacity = headerCount + payloadCount
        let tableCapacity = (payloadCount / 3 + 2) * 8
        let room = stackScratchCount - decodedCount
        if room >= 256 {
            let stackTable = min(tableCapacity, room / 16 * 8)
            let stackText = min(textCapacity, room - stackTable)
            let outcome = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: stackScratchCount) { scratch in
                segments.parse(in: scratch.baseAddress!, textCapacity: stackText, tableCapacity: stackTable)
            }
            switch outcome {
            case .parsed(let token): return .success(token)
            case .failed(let description): return failure(description)
            case .overflowed: break
            }
        }
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: decodedCount + textCapacity + tableCapacity)
        defer { scratch.deallocate() }
        switch segments.parse(in: scratch, textCapacity: textCapacity, tableCapacity: tableCapacity) {
        case .parsed(let token): return .success(token)
        case .failed(let description): return failure(description)
        case .overflowed: preconditionFailure("texts or list items exceed their bound")
        }
    }

    /// The bytes of scratch a parse takes from the stack (the most a temporary allocation takes
    /// there without asking whether the stack has room).
    static let stackScratchCount = 1024

    /// What parsing into a scratch buffer came to.
    enum ScratchOutcome {
        case parsed(ParsedToken)
        case failed(String)
        /// The texts or the list items did not fit the room given them.
        case overflowed
    }

    /// A compact JWS split into its segments, with their decoded lengths.
    struct JWSSegments {
        var headerSegment: UnsafeBufferPointer<UInt8>
        var payloadSegment: UnsafeBufferPointer<UInt8>
        var signatureSegment: UnsafeBufferPointer<UInt8>
        var headerCount: Int
        var payloadCount: Int
        var signatureCount: Int
        var signingInputLength: Int
        var headerMemo: JWSHeaderMemo?

        /// The decoded signature, header and claims, the first regions of the storage.
        var decodedCount: Int { signatureCount + headerCount + payloadCount }

        /// Decodes and reads the segments into `base`, which holds the decoded segments and
        /// `textCapacity` bytes of texts and `tableCapacity` bytes of list items after them.
        func parse(
            in base: UnsafeMutablePointer<UInt8>, textCapacity: Int, tableCapacity: Int
        ) -> ScratchOutcome {
            let recalled: (HeaderFields, SignatureAlgorithm?)?
            switch decodeSegments(into: base) {
            case .failure(let failure): return failure.outcome
            case .success(let memo): recalled = memo
            }
            let decodedCount = self.decodedCount
            var builder = JSONBuilder(
                text: UnsafeMutableBufferPointer(start: base + decodedCount, count: textCapacity),
                textStart: decodedCount,
                table: UnsafeMutableRawBufferPointer(start: base + decodedCount + textCapacity, count: tableCapacity))
            let header: HeaderFields
            let supportedAlgorithm: SignatureAlgorithm?
            if let recalled {
                (header, supportedAlgorithm) = recalled
            } else {
                switch readHeader(in: base, with: &builder) {
                case .failure(let failure): return failure.outcome
                case .success(let read): (header, supportedAlgorithm) = read
                }
            }
            let claims: ClaimFields
            do throws(JSONError) {
                claims = try builder.readClaims(
                    UnsafeBufferPointer(start: base + signatureCount + headerCount, count: payloadCount),
                    at: signatureCount + headerCount)
            } catch {
                if builder.overflowed { return .overflowed }
                return .failed("the claims are not valid: \(error.description)")
            }
            return .parsed(
                token(
                    from: base, textCount: builder.textCount, textCapacity: textCapacity,
                    tableBytes: builder.tableCount * 8, header: header, supportedAlgorithm: supportedAlgorithm,
                    claims: claims))
        }

        /// Decodes the three segments into `base` (the header from the memo when it recalls it:
        /// then its fields, else nil), or the outcome of a segment that is not canonical base64url.
        @inline(__always)
        private func decodeSegments(
            into base: UnsafeMutablePointer<UInt8>
        ) -> Result<(HeaderFields, SignatureAlgorithm?)?, ScratchFailure> {
            guard
                Base64URL.decode(signatureSegment, into: UnsafeMutableBufferPointer(start: base, count: signatureCount))
                    != nil
            else {
                return .failure(ScratchFailure(.failed("the signature segment is not canonical base64url")))
            }
            let headerStart = signatureCount
            let recalled = headerMemo?.recall(headerSegment, into: base + headerStart, headerStart: headerStart)
            if recalled == nil {
                guard
                    Base64URL.decode(
                        headerSegment, into: UnsafeMutableBufferPointer(start: base + headerStart, count: headerCount))
                        != nil
                else {
                    return .failure(ScratchFailure(.failed("the header segment is not canonical base64url")))
                }
            }
            let payloadStart = headerStart + headerCount
            guard
                Base64URL.decode(
                    payloadSegment, into: UnsafeMutableBufferPointer(start: base + payloadStart, count: payloadCount))
                    != nil
            else {
                return .failure(ScratchFailure(.failed("the payload segment is not canonical base64url")))
            }
            return .success(recalled)
        }

        /// Reads the decoded header JSON in `base` (kept in the memo when it needed no text of its
        /// own): its fields and its algorithm when supported.
        @inline(__always)
        private func readHeader(
            in base: UnsafeMutablePointer<UInt8>, with builder: inout JSONBuilder
        ) -> Result<(HeaderFields, SignatureAlgorithm?), ScratchFailure> {
            let headerStart = signatureCount
            let headerJSON = UnsafeBufferPointer(start: base + headerStart, count: headerCount)
            let header: HeaderFields
            do throws(JSONError) {
                header = try builder.readHeader(headerJSON, at: headerStart)
            } catch {
                if builder.overflowed { return .failure(ScratchFailure(.overflowed)) }
                return .failure(
                    ScratchFailure(.failed("the header is not a valid JSON object: \(error.description)")))
            }
            // The scratch is laid out as the storage, so a range of one is a range of the other.
            let supportedAlgorithm = header.algorithm.flatMap {
                SignatureAlgorithm(bytes: UnsafeBufferPointer(start: base + Int($0.start), count: $0.count))
            }
            if builder.textCount == 0 {
                headerMemo?.keep(
                    headerSegment, decoded: headerJSON, headerStart: headerStart, fields: header,
                    supportedAlgorithm: supportedAlgorithm)
            }
            return .success((header, supportedAlgorithm))
        }

        /// The parsed token of the scratch in `base`: its storage, and the fields read.
        @inline(__always)
        private func token(
            from base: UnsafeMutablePointer<UInt8>, textCount: Int, textCapacity: Int, tableBytes: Int,
            header: HeaderFields, supportedAlgorithm: SignatureAlgorithm?, claims: ClaimFields
        ) -> ParsedToken {
            let storage = storage(
                from: base, fixedCount: decodedCount, textCount: textCount, textCapacity: textCapacity,
                tableBytes: tableBytes)
            return ParsedToken(
                storage: storage, tableStart: UInt32(decodedCount + textCount),
                signature: Text(start: 0, end: UInt32(signatureCount)), signingInputLength: signingInputLength,
                algorithm: header.algorithm, keyID: header.keyID, type: header.type,
                hasAlgorithmMember: header.hasAlgorithmMember, hasKeyIDMember: header.hasKeyIDMember,
                hasTypeMember: header.hasTypeMember, hasCritical: header.hasCritical,
                supportedAlgorithm: supportedAlgorithm,
                issuer: claims.issuer, subject: claims.subject, tokenID: claims.tokenID, role: claims.role,
                audience: claims.audience, audienceIsArray: claims.audienceIsArray,
                channels: claims.channels, commands: claims.commands,
                expiresAt: claims.expiresAt, notBefore: claims.notBefore, issuedAt: claims.issuedAt,
                environment: claims.environment, status: claims.status, chain: header.chain)
        }
    }

    /// A ``ScratchOutcome`` that ends a parse early (a refusal or an overflow), as an error.
    struct ScratchFailure: Error {
        let outcome: ScratchOutcome
        init(_ outcome: ScratchOutcome) { self.outcome = outcome }
    }

    /// The storage made from a scratch buffer laid out as `fixedCount` bytes, `textCount` bytes
    /// of texts in room for `textCapacity`, then the item table: the table is moved next to the
    /// texts and the whole copied into one allocation (`Array` of a buffer: its allocation is
    /// specialised, unlike `Array(unsafeUninitializedCapacity:)`'s).
    static func storage(
        from base: UnsafeMutablePointer<UInt8>, fixedCount: Int, textCount: Int, textCapacity: Int,
        tableBytes: Int
    ) -> [UInt8] {
        if textCount < textCapacity, tableBytes > 0 {
            (base + fixedCount + textCount).update(from: base + fixedCount + textCapacity, count: tableBytes)
        }
        return Array(UnsafeBufferPointer(start: base, count: fixedCount + textCount + tableBytes))
    }

}
extension TokenHeader {
    /// The header of a parsed token.
    init(_ token: ParsedToken) {
        self.init(
            algorithm: token.algorithm.map(token.string), keyID: token.keyID.map(token.string),
            type: token.type.map(token.string), hasAlgorithmMember: token.hasAlgorithmMember,
            hasKeyIDMember: token.hasKeyIDMember, hasTypeMember: token.hasTypeMember, hasCritical: token.hasCritical)
    }
}

extension TokenClaims {
    /// The claims of a parsed token.
    init(_ token: ParsedToken) {
        self.init(
            issuer: token.string(token.issuer), subject: token.string(token.subject),
            audience: token.strings(token.audience), audienceIsArray: token.audienceIsArray,
            tokenID: token.string(token.tokenID), expiresAt: token.expiresAt, notBefore: token.notBefore,
            issuedAt: token.issuedAt, environment: token.environment, channels: token.strings(token.channels),
            commands: token.strings(token.commands), role: token.role.map(token.string))
    }
}

extension SignatureAlgorithm {
    /// The algorithm named exactly by `bytes`.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        if bytesEqual(bytes, "Ed25519") {
            self = .ed25519
        } else if bytesEqual(bytes, "EdDSA") {
            self = .edDSA
        } else if bytesEqual(bytes, "ES256") {
            self = .es256
        } else {
            return nil
        }
    }
}

extension Environment {
    /// The environment named exactly by `bytes`.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        if bytesEqual(bytes, "int") {
            self = .integration
        } else if bytesEqual(bytes, "prod") {
            self = .production
        } else {
            return nil
        }
    }
}

/// Whether `bytes` are exactly the UTF-8 of `literal`.
@inline(__always)
private func bytesEqual(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    literal.withUTF8Buffer { bytesEqual(bytes, $0) }
}
