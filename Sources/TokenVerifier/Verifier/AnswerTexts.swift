/// A borrowed view of a valid verdict's texts: what an answer (spec §6) says of a valid token,
/// each text a range of the parsed token's bytes, lent for the length of
/// ``VerificationResult/withAnswerTexts(_:)``'s body. An answer format (LineProtocol's JSON lines
/// and Arrow columns) writes from it without a copy; the token's format, and an invalid verdict's
/// answer, are ``VerificationResult/format`` and ``VerificationResult/failures``.
@usableFromInline package struct AnswerTexts {
    // Lent for the length of `withAnswerTexts`, which holds the token: no reference counting.
    @usableFromInline unowned(unsafe) let token: ParsedToken
    @usableFromInline let storage: UnsafeBufferPointer<UInt8>

    @inlinable init(token: ParsedToken, storage: UnsafeBufferPointer<UInt8>) {
        self.token = token
        self.storage = storage
    }

    @inlinable @inline(__always)
    func text(_ text: ParsedToken.Text) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: storage[Int(text.start)..<Int(text.end)])
    }

    /// `jti`.
    @inlinable @inline(__always) package var tokenID: UnsafeBufferPointer<UInt8> { text(token.tokenID) }
    /// `sub`.
    @inlinable @inline(__always) package var subject: UnsafeBufferPointer<UInt8> { text(token.subject) }
    /// The number of `aud` items (1 for a single string).
    @inlinable @inline(__always) package var audienceCount: Int { Int(token.audience.count) }
    /// `aud` item `index`.
    @inlinable @inline(__always) package func audience(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        text(audienceItem(index))
    }

    /// Where `aud` item `index` lies, read from the lent bytes' item table.
    @inlinable @inline(__always)
    func audienceItem(_ index: Int) -> ParsedToken.Text {
        let raw = UnsafeRawBufferPointer(storage)
        let offset = Int(token.tableStart) + (Int(token.audience.first) + index) * 8
        return ParsedToken.Text(
            start: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
            end: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
    }
    /// Whether `aud` is an array (else one string).
    @inlinable @inline(__always) package var audienceIsArray: Bool { token.audienceIsArray }
    /// `kid`, when the header has one.
    @inlinable @inline(__always) package var keyID: UnsafeBufferPointer<UInt8>? { token.keyID.map(text) }
    /// `alg`, when the header has one.
    @inlinable @inline(__always) package var algorithm: UnsafeBufferPointer<UInt8>? { token.algorithm.map(text) }
    /// `role`, when the claims have one.
    @inlinable @inline(__always) package var role: UnsafeBufferPointer<UInt8>? { token.role.map(text) }
    /// `exp`.
    @inlinable @inline(__always) package var expiresAt: Double { token.expiresAt }
}

extension VerificationResult {
    /// Calls `body` with this verdict's texts when the verdict is valid, and returns what it
    /// returns; nil for an invalid verdict. The texts are lent for the length of the call.
    @inlinable @inline(__always)
    package func withAnswerTexts<Result>(_ body: (AnswerTexts) throws -> Result) rethrows -> Result? {
        guard failures.isEmpty else { return nil }
        // Through optional chaining the token is read in place, not retained.
        return try parsed?.withAnswerTexts(body)
    }
}

extension ParsedToken {
    @inlinable @inline(__always)
    func withAnswerTexts<Result>(_ body: (AnswerTexts) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBufferPointer { try body(AnswerTexts(token: self, storage: $0)) }
    }
}
