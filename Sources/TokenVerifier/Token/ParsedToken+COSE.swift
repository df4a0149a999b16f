import TokenFormats

extension ParsedToken {
    /// Calls `body` with the signed message: a JWS token's `header.payload` prefix of `compact`,
    /// or a CWT's Sig_structure.
    @inline(__always)
    func withSignedMessage<R>(compact: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let signedMessage else { return body(UnsafeBufferPointer(rebasing: compact[..<signingInputLength])) }
        return withBytes(signedMessage, body)
    }

    /// Parses a CWT (spec §2b): canonical base64url of a COSE_Sign1 message of strict CBOR
    /// (``CBORReader``) whose payload is a claims map of the right types. Header problems are
    /// kept for the header checks; everything else wrong is a parse error (`malformed_token`).
    static func parseCOSE(_ token: UnsafeBufferPointer<UInt8>) -> Result<ParsedToken, CompactToken.ParseError> {
        func failure(_ description: String) -> Result<ParsedToken, CompactToken.ParseError> {
            .failure(CompactToken.ParseError(description: description))
        }
        let notBase64 = "a token without a dot is a CWT, written as canonical base64url of its CBOR bytes; this is not"
        guard !token.isEmpty, let cborCount = Base64URL.decodedCount(token.count) else { return failure(notBase64) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, cborCount)) { buffer in
            let cbor = UnsafeMutableBufferPointer(rebasing: buffer[..<cborCount])
            guard Base64URL.decode(token, into: cbor) != nil else { return failure(notBase64) }
            do throws(CBORError) {
                let message = try COSESign1(UnsafeBufferPointer(cbor))
                return .success(try build(UnsafeBufferPointer(cbor), message))
            } catch {
                return failure("the CWT is not valid: \(error.description)")
            }
        }
    }

    /// Lays out the storage (signature, Sig_structure, texts, item table) in one scratch buffer,
    /// reads the headers and the claims into it, and copies it into the storage. A usual token
    /// fits a scratch on the stack with small regions for texts and items; one that overflows
    /// them is read again with the full regions, on the heap.
    private static func build(_ cbor: UnsafeBufferPointer<UInt8>, _ message: COSESign1) throws(CBORError) -> ParsedToken
    {
        let payloadCount = message.payload.count
        let structureCount = CBORWriter.signatureStructureLength(
            protected: message.protected.count, payload: payloadCount)
        let fixedCount = message.signature.count + structureCount
        // Texts made here: an algorithm's name (≤ 20 bytes), a kid and an x5chain from the
        // unprotected header (together shorter than the message), a bstr cti as base64url. Each list item takes at least one byte of the payload.
        let textCapacity = 24 + cbor.count + (payloadCount / 3 + 1) * 4
        let tableCapacity = (payloadCount + 1) * 8
        let room = stackScratchCount - fixedCount
        if room >= 128 {
            let stackText = min(textCapacity, room / 2)
            let stackTable = min(tableCapacity, (room - stackText) / 8 * 8)
            let token = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: stackScratchCount) {
                (scratch) throws(CBORError) in
                try build(
                    cbor, message, in: scratch.baseAddress!, textCapacity: stackText, tableCapacity: stackTable)
            }
            if let token { return token }
        }
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: fixedCount + textCapacity + tableCapacity)
        defer { scratch.deallocate() }
        guard
            let token = try build(cbor, message, in: scratch, textCapacity: textCapacity, tableCapacity: tableCapacity)
        else {
            preconditionFailure("texts or list items exceed their bound")
        }
        return token
    }

    /// ``build(_:_:)`` in the scratch at `base`, with `textCapacity` bytes for texts and
    /// `tableCapacity` for list items; nil when they do not fit.
    private static func build(
        _ cbor: UnsafeBufferPointer<UInt8>, _ message: COSESign1, in base: UnsafeMutablePointer<UInt8>,
        textCapacity: Int, tableCapacity: Int
    ) throws(CBORError) -> ParsedToken? {
        let signatureCount = message.signature.count
        let protected = UnsafeBufferPointer(rebasing: cbor[message.protected])
        let payload = UnsafeBufferPointer(rebasing: cbor[message.payload])
        let structureCount = CBORWriter.signatureStructureLength(protected: protected.count, payload: payload.count)
        let fixedCount = signatureCount + structureCount
        if signatureCount > 0 {
            base.update(from: cbor.baseAddress! + message.signature.lowerBound, count: signatureCount)
        }
        _ = CBORWriter.writeSignatureStructure(protected: protected, payload: payload, to: base + signatureCount)
        let protectedStart = signatureCount + 12 + CBORWriter.headLength(UInt64(protected.count))
        let payloadStart = fixedCount - payload.count
        var builder = ClaimsBuilder(
            base: base, textStart: fixedCount, textCapacity: textCapacity,
            table: UnsafeMutableRawBufferPointer(start: base + fixedCount + textCapacity, count: tableCapacity))
        do throws(CBORError) {
            var header = COSEHeader()
            if protected.count > 0 {
                var reader = CBORReader(UnsafeBufferPointer(start: base + protectedStart, count: protected.count))
                try header.read(&reader, isProtected: true)
                try reader.finish()
            }
            var unprotectedReader = CBORReader(cbor, at: message.unprotectedStart)
            try header.read(&unprotectedReader, isProtected: false)
            let keyID = try headerText(
                header.keyID, isProtected: header.keyIDIsProtected, protectedStart: protectedStart, cbor, &builder)
            let chain = try headerText(
                header.chain, isProtected: header.chainIsProtected, protectedStart: protectedStart, cbor, &builder)
            let supportedAlgorithm = header.algorithmValue.flatMap(COSEHeader.algorithm)
            var algorithm = header.algorithmText.map {
                Text(start: UInt32(protectedStart + $0.lowerBound), end: UInt32(protectedStart + $0.upperBound))
            }
            if let value = header.algorithmValue {
                var copied: Text?
                withUTF8(of: supportedAlgorithm?.rawValue ?? String(value)) { copied = try? builder.copy($0) }
                guard let copied else { throw CBORError("out of room", at: 0) }  // `overflowed` is set
                algorithm = copied
            }

            var claimsReader = CBORReader(UnsafeBufferPointer(start: base + payloadStart, count: payload.count))
            let claims = try builder.readClaims(&claimsReader, offset: payloadStart)
            try claimsReader.finish()

            let textCount = builder.textCount
            let storage = storage(
                from: base, fixedCount: fixedCount, textCount: textCount, textCapacity: textCapacity,
                tableBytes: builder.tableCount * 8)
            return ParsedToken(
                storage: storage, tableStart: UInt32(fixedCount + textCount),
                signature: Text(start: 0, end: UInt32(signatureCount)), signingInputLength: 0,
                algorithm: algorithm, keyID: keyID, type: nil,
                hasAlgorithmMember: header.hasAlgorithm, hasKeyIDMember: header.hasKeyID,
                hasTypeMember: false, hasCritical: header.hasCritical,
                supportedAlgorithm: supportedAlgorithm,
                issuer: claims.issuer, subject: claims.subject, tokenID: claims.tokenID, role: claims.role,
                audience: claims.audience, audienceIsArray: claims.audienceIsArray,
                channels: claims.channels, commands: claims.commands,
                expiresAt: claims.expiresAt, notBefore: claims.notBefore, issuedAt: claims.issuedAt,
                environment: claims.environment, format: .cwt,
                signedMessage: Text(start: UInt32(signatureCount), end: UInt32(fixedCount)),
                headerProblem: header.problem,
                status: claims.status, chain: chain, chainInBothHeaders: header.chainInBothHeaders)
        } catch {
            if builder.overflowed { return nil }
            throw error
        }
    }

    /// Where a header value at `range` lies in the storage: in the protected header (part of the
    /// Sig_structure, which starts at `protectedStart`), or copied there from the unprotected one.
    private static func headerText(
        _ range: Range<Int>?, isProtected: Bool, protectedStart: Int, _ cbor: UnsafeBufferPointer<UInt8>,
        _ builder: inout ClaimsBuilder
    ) throws(CBORError) -> Text? {
        guard let range else { return nil }
        guard isProtected else { return try builder.copy(UnsafeBufferPointer(rebasing: cbor[range])) }
        return Text(start: UInt32(protectedStart + range.lowerBound), end: UInt32(protectedStart + range.upperBound))
    }
}
