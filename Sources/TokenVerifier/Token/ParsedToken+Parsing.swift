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
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: decodedCount + textCapacity + tableCapacity) {
            scratch in
            let base = scratch.baseAddress!
            guard
                Base64URL.decode(signatureSegment, into: UnsafeMutableBufferPointer(start: base, count: signatureCount))
                    != nil
            else {
                return failure("the signature segment is not canonical base64url")
            }
            let headerStart = signatureCount
            guard
                Base64URL.decode(
                    headerSegment, into: UnsafeMutableBufferPointer(start: base + headerStart, count: headerCount))
                    != nil
            else {
                return failure("the header segment is not canonical base64url")
            }
            let payloadStart = headerStart + headerCount
            guard
                Base64URL.decode(
                    payloadSegment, into: UnsafeMutableBufferPointer(start: base + payloadStart, count: payloadCount))
                    != nil
            else {
                return failure("the payload segment is not canonical base64url")
            }
            var builder = JSONBuilder(
                text: UnsafeMutableBufferPointer(start: base + decodedCount, count: textCapacity),
                textStart: decodedCount,
                table: UnsafeMutableRawBufferPointer(start: base + decodedCount + textCapacity, count: tableCapacity))
            var header = HeaderFields()
            do throws(JSONError) {
                header = try builder.readHeader(
                    UnsafeBufferPointer(start: base + headerStart, count: headerCount), at: headerStart)
            } catch {
                return failure("the header is not a valid JSON object: \(error.description)")
            }
            let claims: ClaimFields
            do throws(JSONError) {
                claims = try builder.readClaims(
                    UnsafeBufferPointer(start: base + payloadStart, count: payloadCount), at: payloadStart)
            } catch {
                return failure("the claims are not valid: \(error.description)")
            }
            // The scratch is laid out as the storage, so a range of one is a range of the other.
            let supportedAlgorithm = header.algorithm.flatMap {
                SignatureAlgorithm(bytes: UnsafeBufferPointer(start: base + Int($0.start), count: $0.count))
            }
            let textCount = builder.textCount
            let storage = storage(
                from: base, fixedCount: decodedCount, textCount: textCount, textCapacity: textCapacity,
                tableBytes: builder.tableCount * 8)
            return .success(
                ParsedToken(
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
    static func storage(
        from base: UnsafeMutablePointer<UInt8>, fixedCount: Int, textCount: Int, textCapacity: Int,
        tableBytes: Int
    ) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: max(1, fixedCount + textCount + tableBytes)) { out, initialized in
            let target = out.baseAddress!
            target.update(from: base, count: fixedCount + textCount)
            (target + fixedCount + textCount).update(from: base + fixedCount + textCapacity, count: tableBytes)
            initialized = fixedCount + textCount + tableBytes
        }
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
        guard
            let match = Self.allCases.first(where: { algorithm in
                withUTF8(of: algorithm.rawValue) { bytesEqual($0, bytes) }
            })
        else {
            return nil
        }
        self = match
    }
}

extension Environment {
    /// The environment named exactly by `bytes`.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard
            let match = Self.allCases.first(where: { environment in
                withUTF8(of: environment.rawValue) { bytesEqual($0, bytes) }
            })
        else {
            return nil
        }
        self = match
    }
}
